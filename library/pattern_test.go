package library

import (
	"testing"
)

func TestParsePatternRejects(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"", " example.com", "example.com ", "https://example.com/x", "example.com:8080/x",
		"user@example.com", "localhost", "*.com.", "a..example.com", ".example.com", "*example.com",
		"exa*mple.com", "example.com/x?id", "example.com/x?=A", "example.com/x?id=", "example.com/x?id=A&b=c",
		"example.com/[*", "example.com/a b", "example.com/x#frag", "bücher.example/x",
	} {
		if p, err := ParsePattern(raw); err == nil {
			t.Errorf("ParsePattern(%q) = %+v, want error", raw, p)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"connect.facebook.net",
			[]string{"https://connect.facebook.net/en_US/fbevents.js", "//CONNECT.facebook.net/x", "connect.facebook.net:443/a?b#c"},
			[]string{"https://facebook.net/x", "https://x.connect.facebook.net/", "https://connect.facebook.net.evil.example/"}},
		{"*.hotjar.com",
			[]string{"https://hotjar.com/", "https://static.hotjar.com/c/hotjar-1.js", "https://a.b.hotjar.com"},
			[]string{"https://nothotjar.com/", "https://hotjar.com.example/"}},
		{"www.googletagmanager.com/gtag/js?id=G-",
			[]string{"https://www.googletagmanager.com/gtag/js?id=G-ABC123", "https://www.googletagmanager.com/gtag/js?l=dl&id=G-X"},
			[]string{"https://www.googletagmanager.com/gtag/js?id=AW-123", "https://www.googletagmanager.com/gtag/js", "https://www.googletagmanager.com/gtm.js?id=G-X"}},
		{"www.gstatic.com/recaptcha/*/recaptcha__*.js",
			[]string{"https://www.gstatic.com/recaptcha/releases/recaptcha__en.js"},
			[]string{"https://www.gstatic.com/recaptcha/releases/x/recaptcha__en.js", "https://www.gstatic.com/other.js"}},
		{"example.com/",
			[]string{"https://example.com", "https://example.com/anything"},
			[]string{"https://www.example.com/"}},
	}
	for _, tc := range cases {
		p, err := ParsePattern(tc.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tc.pattern, err)
		}
		for _, u := range tc.match {
			if !p.MatchString(u) {
				t.Errorf("%q does not match %q", tc.pattern, u)
			}
		}
		for _, u := range tc.noMatch {
			if p.MatchString(u) {
				t.Errorf("%q matches %q", tc.pattern, u)
			}
		}
	}
	p, _ := ParsePattern("example.com")
	if p.MatchString("https://exa mple.com/%zz") || p.MatchString("") {
		t.Error("unparseable URL matched")
	}
}

func FuzzPattern(f *testing.F) {
	f.Add("www.googletagmanager.com/gtag/js?id=G-", "https://www.googletagmanager.com/gtag/js?id=G-1")
	f.Add("*.hotjar.com/c/*.js", "//static.hotjar.com/c/hotjar-1.js")
	f.Add("a.b/%zz?x=%", "a.b/%zz?x=%25;")
	f.Fuzz(func(t *testing.T, raw, u string) {
		p, err := ParsePattern(raw)
		if err != nil {
			return
		}
		if _, err := ParsePattern(p.Key()); err != nil {
			t.Fatalf("key %q of valid pattern %q does not parse: %v", p.Key(), raw, err)
		}
		p.MatchString(u) // must not panic
	})
}
