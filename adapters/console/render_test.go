package console

import (
	"regexp"
	"testing"

	"github.com/consentd/consentd/adapters/console/formlimits"
	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core"
)

func TestWords(t *testing.T) {
	t.Parallel()
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
		if got := textfmt.Human(in); got != want {
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
}

// TestFormLimitsAreCore: every maxlength, minlength, max, min and pattern in the templates
// names one of core's limits or patterns through the max, min or pattern function, so a form
// never restates a number or a rule the API may change.
func TestFormLimitsAreCore(t *testing.T) {
	t.Parallel()
	entries, err := files.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	attr := regexp.MustCompile(`\s(maxlength|minlength|max|min|pattern)="(\{\{[^}]*\}\}|[^"]*)"`)
	fn := regexp.MustCompile(`^\{\{(max|min|pattern) "([A-Za-z]+)"\}\}$`)
	funcs := map[string]func(string) error{
		"max":     func(f string) error { _, err := formlimits.Max(f); return err },
		"min":     func(f string) error { _, err := formlimits.Min(f); return err },
		"pattern": func(f string) error { _, err := formlimits.Pattern(f); return err },
	}
	// which function each attribute takes its value from
	from := map[string]string{"maxlength": "max", "max": "max", "minlength": "min", "min": "min", "pattern": "pattern"}
	for _, e := range entries {
		b, err := files.ReadFile("templates/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range attr.FindAllSubmatch(b, -1) {
			m := fn.FindSubmatch(a[2])
			if m == nil || string(m[1]) != from[string(a[1])] {
				t.Errorf("%s: %s=%q does not come from core (through %s)", e.Name(), a[1], a[2], from[string(a[1])])
				continue
			}
			if err := funcs[string(m[1])](string(m[2])); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
	}
	for name, f := range funcs {
		if err := f("nothing"); err == nil {
			t.Errorf("%s: an unknown field has a value", name)
		}
	}
	if p, _ := formlimits.Pattern("slug"); !regexp.MustCompile("^(?:" + p + ")$").MatchString("google-analytics") {
		t.Errorf("the slug pattern %q refuses a slug", p)
	}
}

// TestCanWithoutActor: a page without an actor offers nothing, and a viewer's page offers
// only reading.
func TestCanWithoutActor(t *testing.T) {
	t.Parallel()
	for _, p := range core.Permissions() {
		if (page{}).Can(string(p)) {
			t.Errorf("a page without an actor offers %q", p)
		}
	}
	viewer := page{Actor: &core.Actor{Kind: core.ActorKey, Role: core.RoleViewer}}
	if !viewer.Can(string(core.PermRead)) || viewer.Can(string(core.PermConfigure)) {
		t.Error("a viewer's page: want read only")
	}
}
