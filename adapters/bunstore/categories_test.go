package bunstore

import (
	"encoding/json"
	"maps"
	"testing"
)

func TestConsentCategoriesScan(t *testing.T) {
	var c consentCategories
	for _, src := range []any{[]byte(`{"essential":true,"marketing":false,"statistics":true}`),
		`{"essential": true, "marketing": false, "statistics": true}`} {
		if err := c.Scan(src); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(c, consentCategories{"essential": true, "marketing": false, "statistics": true}) {
			t.Fatalf("%v from %s", c, src)
		}
	}
	for _, bad := range []any{[]byte(`{"a":1}`), `["a"]`, `{"a":true`, 42, `{"a":"true"}`} {
		if err := c.Scan(bad); err == nil {
			t.Errorf("%v scanned as %v", bad, c)
		}
	}
	if err := c.Scan(nil); err != nil || c != nil {
		t.Fatalf("NULL: %v %v", c, err)
	}
	v, err := consentCategories{"statistics": true, "essential": true}.Value()
	if err != nil || v != `{"essential":true,"statistics":true}` {
		t.Fatalf("value %v %v", v, err)
	}
}

// BenchmarkConsentCategoriesScan: categories_consented read through gjson (what the store
// does) against encoding/json into a map (what bun's jsonb scanning did).
//
//	go test -run '^$' -bench ConsentCategoriesScan -benchmem ./adapters/bunstore/
func BenchmarkConsentCategoriesScan(b *testing.B) {
	src := []byte(`{"essential": true, "marketing": false, "statistics": true, "functional": false}`)
	b.Run("gjson", func(b *testing.B) {
		for b.Loop() {
			var c consentCategories
			if err := c.Scan(src); err != nil || len(c) != 4 {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var m map[string]bool
			if err := json.Unmarshal(src, &m); err != nil || len(m) != 4 {
				b.Fatal(err)
			}
		}
	})
}
