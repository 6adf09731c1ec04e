package library

import (
	"errors"
	"strings"
	"testing"
)

// validService returns a service that passes every rule; each table case breaks one rule.
func validService() *Service {
	return &Service{
		Slug:             "acme-pixel",
		Label:            "Acme Pixel",
		Description:      "Conversion pixel of Acme.",
		Category:         CategoryMarketing,
		Vendor:           "Acme Corp",
		ServiceURL:       "https://acme.example/",
		PrivacyPolicyURL: "https://acme.example/privacy",
		Cookies: []Cookie{
			{Name: "_acme", Match: MatchExact, Duration: "90 days", Party: "first", Storage: "cookie"},
			{Name: "acme_", Match: MatchPrefix, Duration: "session", Party: "third", Storage: "localStorage"},
			{Name: "^ac[0-9]+$", Match: MatchRegex, Duration: "1 day", Party: "first", Storage: "cookie"},
		},
		Scripts:   []string{"cdn.acme.example/pixel.js", "www.gstatic.com/acme/"},
		Resources: []string{"*.acme.example/tr?id=AP-"},
		TrackingIDs: []TrackingID{{
			Pattern:  `\b(AP-[0-9]{4,})\b`,
			Examples: []string{"acme('init','AP-12345')"},
		}},
	}
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	cases := []struct {
		name   string
		mutate func(s *Service)
		field  string // the field every problem must name ("" for no problem)
	}{
		{"valid", func(*Service) {}, ""},
		{"slug missing", func(s *Service) { s.Slug = "" }, "slug"},
		{"slug upper case", func(s *Service) { s.Slug = "Acme-Pixel" }, "slug"},
		{"slug with space", func(s *Service) { s.Slug = "acme pixel" }, "slug"},
		{"slug too long", func(s *Service) { s.Slug = strings.Repeat("a", 101) }, "slug"},
		{"slug not file name", func(s *Service) { s.Slug = "acme" }, "slug"},
		{"label missing", func(s *Service) { s.Label = " " }, "label"},
		{"label too long", func(s *Service) { s.Label = strings.Repeat("é", 201) }, "label"},
		{"description missing", func(s *Service) { s.Description = "" }, "description"},
		{"description too long", func(s *Service) { s.Description = strings.Repeat("x", 1001) }, "description"},
		{"vendor missing", func(s *Service) { s.Vendor = "" }, "vendor"},
		{"category missing", func(s *Service) { s.Category = "" }, "category"},
		{"category unknown", func(s *Service) { s.Category = "functional" }, "category"},
		{"logo not URL", func(s *Service) { s.Logo = str("logo.png") }, "logo"},
		{"serviceUrl missing", func(s *Service) { s.ServiceURL = "" }, "serviceUrl"},
		{"serviceUrl relative", func(s *Service) { s.ServiceURL = "/about" }, "serviceUrl"},
		{"serviceUrl ftp", func(s *Service) { s.ServiceURL = "ftp://acme.example/" }, "serviceUrl"},
		{"serviceUrl unparseable", func(s *Service) { s.ServiceURL = "https://acme.example/%zz" }, "serviceUrl"},
		{"privacyPolicyUrl no host", func(s *Service) { s.PrivacyPolicyURL = "https:///privacy" }, "privacyPolicyUrl"},
		{"cookie name missing", func(s *Service) { s.Cookies[1].Name = "" }, "cookies[1].name"},
		{"cookie match unknown", func(s *Service) { s.Cookies[2].Match = "glob" }, "cookies[2].match"},
		{"cookie regex bad", func(s *Service) { s.Cookies[2].Name = "ac[0-9" }, "cookies[2].name"},
		{"cookie duration missing", func(s *Service) { s.Cookies[0].Duration = "" }, "cookies[0].duration"},
		{"cookie party unknown", func(s *Service) { s.Cookies[0].Party = "1st" }, "cookies[0].party"},
		{"cookie storage unknown", func(s *Service) { s.Cookies[0].Storage = "sessionStorage" }, "cookies[0].storage"},
		{"cookie duplicate", func(s *Service) { s.Cookies = append(s.Cookies, s.Cookies[0]) }, "cookies[3].name"},
		{"script pattern with scheme", func(s *Service) { s.Scripts[0] = "https://cdn.acme.example/pixel.js" }, "scripts[0]"},
		{"script pattern empty", func(s *Service) { s.Scripts[1] = "" }, "scripts[1]"},
		{"script on shared host without path", func(s *Service) { s.Scripts[1] = "www.gstatic.com" }, "scripts[1]"},
		{"resource on shared subdomain without path", func(s *Service) { s.Resources[0] = "*.s3.amazonaws.com" }, "resources[0]"},
		{"resource bad query", func(s *Service) { s.Resources[0] = "acme.example/x?id" }, "resources[0]"},
		{"resource bad glob", func(s *Service) { s.Resources[0] = "acme.example/[*" }, "resources[0]"},
		{"script listed twice", func(s *Service) { s.Scripts = append(s.Scripts, "CDN.acme.example/pixel.js") }, "scripts[2]"},
		{"tracking pattern missing", func(s *Service) { s.TrackingIDs[0].Pattern = "" }, "trackingIds[0].pattern"},
		{"tracking pattern bad", func(s *Service) { s.TrackingIDs[0].Pattern = `(AP-[0-9]+` }, "trackingIds[0].pattern"},
		{"tracking pattern no group", func(s *Service) { s.TrackingIDs[0].Pattern = `AP-[0-9]+` }, "trackingIds[0].pattern"},
		{"tracking pattern two groups", func(s *Service) { s.TrackingIDs[0].Pattern = `(AP)-([0-9]+)` }, "trackingIds[0].pattern"},
		{"tracking no examples", func(s *Service) { s.TrackingIDs[0].Examples = nil }, "trackingIds[0].examples"},
		{"tracking example not matched", func(s *Service) {
			s.TrackingIDs[0].Examples = append(s.TrackingIDs[0].Examples, "AP-12")
		}, "trackingIds[0].examples[1]"},
		{"tracking example empty capture", func(s *Service) {
			s.TrackingIDs[0] = TrackingID{Pattern: `id=(\d*)`, Examples: []string{"id=x"}}
		}, "trackingIds[0].examples[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := validService()
			tc.mutate(s)
			e, ps := compileService(s, "services/acme-pixel.json", "acme-pixel")
			if e != nil { // crossCheck covers a pattern listed twice in one entry
				ps = append(ps, crossCheck([]*Entry{e})...)
			}
			if tc.field == "" {
				if len(ps) > 0 {
					t.Fatalf("valid service rejected: %v", ps)
				}
				return
			}
			if len(ps) == 0 {
				t.Fatalf("no problem reported, want one on %s", tc.field)
			}
			for _, p := range ps {
				if p.Field != tc.field || p.File != "services/acme-pixel.json" {
					t.Errorf("problem %q, want it on field %s of services/acme-pixel.json", p, tc.field)
				}
				if !strings.HasPrefix(p.Error(), "services/acme-pixel.json: "+tc.field+": ") {
					t.Errorf("message %q does not start with file and field", p)
				}
			}
		})
	}
}

func TestValidateCrossServiceScripts(t *testing.T) {
	t.Parallel()
	a, b := validService(), validService()
	b.Slug = "other-pixel"
	b.Scripts = []string{"cdn.other.example/x.js", "cdn.ACME.example/pixel.js"}
	_, err := FromServices([]*Service{b, a})
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 {
		t.Fatalf("err = %v, want one problem", err)
	}
	// The entries are checked in slug order, so the later slug is reported.
	if got := ps[0].Error(); !strings.HasPrefix(got, "other-pixel.json: scripts[1]: ") || !strings.Contains(got, "acme-pixel") {
		t.Errorf("problem = %q", got)
	}
}

func TestValidateCollectsAllProblems(t *testing.T) {
	t.Parallel()
	s := validService()
	s.Label = ""
	s.Category = "x"
	s.Cookies[0].Match = "y"
	s.TrackingIDs[0].Examples = []string{"none"}
	_, ps := compileService(s, "f.json", "acme-pixel")
	want := []string{"label", "category", "cookies[0].match", "trackingIds[0].examples[0]"}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems %v, want %d", len(ps), ps, len(want))
	}
	for i, w := range want {
		if ps[i].Field != w {
			t.Errorf("problem %d on %q, want %q", i, ps[i].Field, w)
		}
	}
}

func TestPatternKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{
		{"WWW.Example.com/x.js", "www.example.com/x.js"},
		{"example.com/", "example.com"},
		{"*.Example.com/p?id=A-", "*.example.com/p?id=A-"},
	} {
		pa, err1 := ParsePattern(tc.a)
		pb, err2 := ParsePattern(tc.b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if pa.Key() != pb.Key() {
			t.Errorf("Key(%q) = %q, Key(%q) = %q, want equal", tc.a, pa.Key(), tc.b, pb.Key())
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"example.com/x.js", "*.example.com/x.js"},
		{"example.com/X.js", "example.com/x.js"},
		{"example.com/x?id=A", "example.com/x?id=B"},
	} {
		pa, _ := ParsePattern(tc.a)
		pb, _ := ParsePattern(tc.b)
		if pa.Key() == pb.Key() {
			t.Errorf("Key(%q) == Key(%q) = %q, want different", tc.a, tc.b, pa.Key())
		}
	}
}
