package console

import (
	"regexp"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"url: must be an absolute http(s) URL":                   "The address must be an absolute http(s) URL.",
		"cookies[2].duration: must be 1 to 100 characters":       "Cookie 3: its Duration must be 1 to 100 characters.",
		"service \"x\" already exists on this site":              "Service \"x\" already exists on this site.",
		"categorySlug: category \"nope\" not found on this site": "Category \"nope\" not found on this site.",
		"": "",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"wide_bar": "Wide bar", "acceptLabel": "Accept label", "bottom_left": "Bottom left"} {
		if got := human(in); got != want {
			t.Errorf("human(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"/sites/x?a=1": "/sites/x?a=1", "": "/sites", "//evil.example": "/sites", "/\\evil.example": "/sites",
		"https://evil.example": "/sites", "/x\r\nSet-Cookie: a=b": "/sites",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
	for v, want := range map[int64]int64{0: 1, 1: 1, 2: 2, 3: 5, 7: 10, 11: 20, 450: 500, 1000: 1000} {
		if got := niceMax(v); got != want {
			t.Errorf("niceMax(%d) = %d, want %d", v, got, want)
		}
	}
}

// TestFormLimitsAreCore: every maxlength in the templates names one of core's limits through
// the max function, so a form never restates a number the API may change.
func TestFormLimitsAreCore(t *testing.T) {
	entries, err := files.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`maxlength="\{\{max "([A-Za-z]+)"\}\}"`)
	for _, e := range entries {
		b, err := files.ReadFile("templates/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "maxlength="); n != len(used.FindAll(b, -1)) {
			t.Errorf("%s: a maxlength that does not come from max", e.Name())
		}
		for _, m := range used.FindAllSubmatch(b, -1) {
			if _, err := formMax(string(m[1])); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
	}
	if _, err := formMax("nothing"); err == nil {
		t.Error("an unknown field has a limit")
	}
}
