package httpapi_test

import (
	"strings"
	"testing"
)

// TestCategoryNamesInEveryScript: names in any script, and of emoji alone, are accepted and
// get a slug that works in URLs and blocking rules; a blank name is refused.
func TestCategoryNamesInEveryScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	base := "/api/v1/sites/" + id + "/categories"
	for name, want := range map[string]string{"中文类别": "zhong-wen-lei-bie", "Категория": "kategoriia", "🍪": "category-"} {
		c := e.want(e.do("POST", base, map[string]any{"name": name}), 201).obj(t)
		if c["name"] != name || !strings.HasPrefix(c["slug"].(string), want) {
			t.Errorf("category %q: name %v, slug %v; want slug %s…", name, c["name"], c["slug"], want)
		}
	}
	e.want(e.do("POST", base, map[string]any{"name": "   "}), 400, "validation_error")
}
