package httpapi_test

import "testing"

// TestStoreBounds: values the store cannot hold are 400s, on SQLite and on Postgres: a sort
// order past 32 bits, dates outside years 1 to 9999 in the listing and the export.
func TestStoreBounds(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name string
		env  func(*testing.T) *env
	}{{"sqlite", newEnv}, {"postgres", newPostgresEnv}} {
		t.Run(db.name, func(t *testing.T) {
			e := db.env(t)
			id, _ := e.site()
			cat := "/api/v1/sites/" + id + "/categories/" + e.categoryID(id, "marketing")
			e.want(e.do("PATCH", cat, map[string]any{"sortOrder": 1<<31 - 1}), 200)
			e.want(e.do("PATCH", cat, map[string]any{"sortOrder": 1 << 31}), 400, "validation_error")
			e.want(e.do("PATCH", cat, map[string]any{"sortOrder": 1 << 62}), 400, "validation_error")
			e.want(e.raw("PATCH", cat, e.keyA, `{"sortOrder":1e300}`), 400, "validation_error")
			for _, base := range []string{"/api/v1/sites/" + id + "/consent-records", "/api/v1/sites/" + id + "/consent-records/export"} {
				for _, q := range []string{"from=0000-01-01", "to=0000-12-31T23:59:59Z", "from=9999-12-31T23:59:59-05:00", "to=-0001-01-01"} {
					e.want(e.do("GET", base+"?"+q, nil), 400, "validation_error")
				}
				for _, q := range []string{"from=0001-01-01", "to=9999-12-31T23:59:59Z", "from=0001-01-01T00:00:00Z&to=9999-12-31"} {
					e.want(e.do("GET", base+"?"+q, nil), 200)
				}
			}
			if errs := e.logs.errors(); len(errs) > 0 {
				t.Errorf("ERROR logged: %v", errs)
			}
		})
	}
}
