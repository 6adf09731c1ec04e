package bunstore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
)

// consentCategories is a record's categories_consented column: a flat JSON object of
// category slug to boolean. Listing pages and exports read it on every row; decoded through
// bun's encoding/json reflection it was a third of a listing page's row scanning, so it scans
// with gjson (BenchmarkConsentCategoriesScan beside it has the figures). It is written as
// encoding/json writes a map: keys sorted, so stored rows look as they always did.
type consentCategories map[string]bool

// Scan implements sql.Scanner: jsonb arrives as bytes from Postgres, TEXT from SQLite.
func (c *consentCategories) Scan(src any) error {
	var raw string
	switch v := src.(type) {
	case nil:
		*c = nil
		return nil
	case []byte:
		raw = string(v) // the one copy gjson.ParseBytes would make too
	case string:
		raw = v
	default:
		return fmt.Errorf("categories_consented: cannot scan %T", src)
	}
	if !gjson.Valid(raw) {
		return fmt.Errorf("categories_consented: not JSON: %.60q", raw)
	}
	r := gjson.Parse(raw)
	if r.Type == gjson.Null {
		*c = nil
		return nil
	}
	if !r.IsObject() {
		return fmt.Errorf("categories_consented: not an object: %.60q", r.Raw)
	}
	m := make(consentCategories, 4)
	var bad error
	r.ForEach(func(k, v gjson.Result) bool {
		if v.Type != gjson.True && v.Type != gjson.False {
			bad = fmt.Errorf("categories_consented: %q is not a boolean", k.String())
			return false
		}
		m[k.String()] = v.Type == gjson.True
		return true
	})
	if bad != nil {
		return bad
	}
	*c = m
	return nil
}

// Value implements driver.Valuer.
func (c consentCategories) Value() (driver.Value, error) {
	b, err := json.Marshal(map[string]bool(c))
	return string(b), err
}
