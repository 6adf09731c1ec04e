package bunstore

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core/consent"
)

type nulProbe struct {
	Exported   string
	unexported string
	inner
	Inner   inner
	Ptr     *inner
	Cats    map[string]bool
	Strings []string
}

type inner struct{ Text string }

// TestStorableLooksAtExportedFieldsOnly: a NUL in any exported string, at any depth, is refused;
// one in an unexported field (which no store writes) is not looked at.
func TestStorableLooksAtExportedFieldsOnly(t *testing.T) {
	for name, c := range map[string]struct {
		v    nulProbe
		want bool
	}{
		"clean":               {nulProbe{Exported: "a", Cats: map[string]bool{"x": true}}, false},
		"exported":            {nulProbe{Exported: "a\x00"}, true},
		"unexported":          {nulProbe{unexported: "a\x00"}, false},
		"embedded unexported": {nulProbe{inner: inner{Text: "\x00"}}, false},
		"nested":              {nulProbe{Inner: inner{Text: "\x00"}}, true},
		"pointer":             {nulProbe{Ptr: &inner{Text: "\x00"}}, true},
		"map key":             {nulProbe{Cats: map[string]bool{"a\x00": true}}, true},
		"slice":               {nulProbe{Strings: []string{"ok", "\x00"}}, true},
	} {
		if got := storable("probe", &c.v) != nil; got != c.want {
			t.Errorf("%s: refused %v, want %v", name, got, c.want)
		}
	}
}

// BenchmarkStorableConsentRecord: the NUL check every consent post pays before its record is
// queued.
func BenchmarkStorableConsentRecord(b *testing.B) {
	r := &consent.ConsentRecord{ID: "0193a000-0000-7000-8000-000000000000", SiteID: "0193a000-0000-7000-8000-000000000001",
		VisitorID: "v_1", IPCountry: "FR", Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true, "statistics": true},
		ConsentVersion: 1, Action: "custom", CreatedAt: time.Now(), PageURL: "https://example.com/", UserAgent: "Chrome desktop"}
	for b.Loop() {
		if err := storable("consent record", r); err != nil {
			b.Fatal(err)
		}
	}
}
