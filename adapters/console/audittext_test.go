package console

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/auditview"
)

// TestAuditChangesNested: a nested change (a banner's regional rules) shows as rows of field
// path, old value and new value for what differs, never as raw JSON; a plain change stays one
// row.
func TestAuditChangesNested(t *testing.T) {
	t.Parallel()
	old := json.RawMessage(`[{"name":"EU","regions":["EU"],"policy":{"mode":"opt_in","showBanner":true}},{"name":"US","regions":["US"],"policy":{"mode":"opt_out"}}]`)
	new := json.RawMessage(`[{"name":"EU","regions":["EU","GB"],"policy":{"mode":"opt_in","showBanner":false}}]`)
	got := rowsOf("regionRules", old, new)
	want := []auditChange{
		{Field: "Region rules › 1 › Policy › Show banner", Old: "yes", New: "no"},
		{Field: "Region rules › 1 › Regions", Old: "EU", New: "EU, GB"},
		{Field: "Region rules › 2 › Name", Old: "US", New: "—"},
		{Field: "Region rules › 2 › Policy › Mode", Old: "opt_out", New: "—"},
		{Field: "Region rules › 2 › Regions", Old: "US", New: "—"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("nested change:\n got %+v\nwant %+v", got, want)
	}
	for _, c := range got {
		for _, s := range []string{c.Old, c.New} {
			if len(s) > 0 && (s[0] == '{' || s[0] == '[') {
				t.Fatalf("raw JSON in the audit log: %+v", c)
			}
		}
	}
	if got := rowsOf("template", json.RawMessage(`"floating"`), json.RawMessage(`"modal"`)); !reflect.DeepEqual(got, []auditChange{{Field: "Template", Old: "floating", New: "modal"}}) {
		t.Fatalf("plain change: %+v", got)
	}
	if got := rowsOf("domains", json.RawMessage(`["a.example","b.example"]`), json.RawMessage(`null`)); !reflect.DeepEqual(got, []auditChange{{Field: "Domains", Old: "a.example, b.example", New: "—"}}) {
		t.Fatalf("list of plain values: %+v", got)
	}
}

// TestPlaceNamesAreCurrent: the preview's and the statistics' places carry CLDR's current
// English names, not the older ones of the display tables ("Macedonia", "Swaziland").
func TestPlaceNamesAreCurrent(t *testing.T) {
	t.Parallel()
	names := map[string]string{}
	for _, p := range places() {
		names[p.Code] = p.Name
	}
	for code, want := range map[string]string{"MK": "North Macedonia", "SZ": "Eswatini", "TR": "Türkiye", "FR": "France", "CZ": "Czechia"} {
		if names[code] != want {
			t.Errorf("place %s is named %q, want %q", code, names[code], want)
		}
	}
	if got := placeName("SZ"); got != "Eswatini (SZ)" {
		t.Errorf("placeName(SZ) = %q", got)
	}
	for _, n := range names {
		if n == "Macedonia" || n == "Swaziland" || n == "Turkey" {
			t.Errorf("an outdated name in the places: %q", n)
		}
	}
}

// rowsOf is a change as the audit page shows it.
func rowsOf(field string, old, new json.RawMessage) []auditChange {
	return auditview.Rows(field, old, new, textfmt.Human)
}
