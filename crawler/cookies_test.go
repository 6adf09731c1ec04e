package crawler

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestCookieLifetimeAndPath(t *testing.T) {
	t.Parallel()
	date := "Tue, 24 Nov 2026 06:00:00 GMT"
	cases := []struct {
		line string
		want time.Duration
	}{
		{"a=1; Max-Age=3600", time.Hour},
		{"a=1; Max-Age=3600; Expires=Wed, 25 Nov 2026 06:00:00 GMT", time.Hour}, // Max-Age wins
		{"a=1; Expires=Wed, 25 Nov 2026 06:00:00 GMT", 24 * time.Hour},
		{"a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", 0}, // deletion
		{"a=1; Max-Age=0", 0},
		{"a=1", 0},
	}
	for _, c := range cases {
		ck, err := http.ParseSetCookie(c.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := cookieLifetime(ck, date); got != c.want {
			t.Errorf("%s: lifetime %v, want %v", c.line, got, c.want)
		}
	}
	for raw, want := range map[string]string{
		"https://a.example": "/", "https://a.example/": "/", "https://a.example/x": "/",
		"https://a.example/x/y": "/x", "https://a.example/x/y/": "/x/y",
	} {
		u, _ := url.Parse(raw)
		if got := defaultCookiePath(u); got != want {
			t.Errorf("%s: default path %q, want %q", raw, got, want)
		}
	}
}

func TestCookiesOf(t *testing.T) {
	t.Parallel()
	r := &Result{Cookies: []ObservedCookie{{Name: "_ga", Service: "google-analytics"}, {Name: "sid"}, {Name: "_ga_X", Service: "google-analytics"}, {Name: "_fbp", Service: "meta-pixel"}}}
	got := r.CookiesOf("google-analytics")
	if len(got) != 2 || got[0].Name != "_ga" || got[1].Name != "_ga_X" {
		t.Errorf("CookiesOf(google-analytics) = %+v", got)
	}
	if got := r.CookiesOf(""); got != nil {
		t.Errorf("CookiesOf(\"\") = %+v, want none", got)
	}
}
