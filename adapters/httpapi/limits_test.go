package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/banner"
)

// TestLimits checks every limit of the API's contract at its boundary: accepted at the limit,
// 400 one past it.
func TestLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	site := "/api/v1/sites/" + id
	// a category whose slug is exactly 50 characters, for categorySlug at its limit
	cat50 := e.want(e.do("POST", site+"/categories", map[string]any{"name": strings.Repeat("c", 50)}), 201).obj(t)["slug"].(string)
	if len(cat50) != 50 {
		t.Fatalf("slug of a 50-char name has %d chars", len(cat50))
	}
	s := func(n int) string { return strings.Repeat("a", n) }
	url := func(n int) string { return "https://example.com/" + strings.Repeat("p", n-len("https://example.com/")) }
	urls := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("https://shop.example/%d", i)
		}
		return out
	}
	serial := 0
	uniq := func() string { serial++; return fmt.Sprintf("svc-%d", serial) }
	svc := func(extra map[string]any) map[string]any {
		b := map[string]any{"slug": uniq(), "label": "L", "categorySlug": "marketing"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	cookie := func(c map[string]any) map[string]any {
		b := map[string]any{"name": "n", "duration": "1 day"}
		for k, v := range c {
			b[k] = v
		}
		return svc(map[string]any{"cookies": []any{b}})
	}
	cases := []struct {
		name   string
		method string
		path   string
		limit  int
		body   func(n int) any
		query  func(n int) string
	}{
		{"banner cookieExpirationDays", "PATCH", site + "/banner", 730, func(n int) any { return map[string]any{"cookieExpirationDays": n} }, nil},
		{"banner text body", "PATCH", site + "/banner", 2000, func(n int) any { return map[string]any{"textOverrides": map[string]any{"body": s(n)}} }, nil},
		{"banner privacyPolicyUrl", "PATCH", site + "/banner", 500, func(n int) any { return map[string]any{"privacyPolicyUrl": url(n)} }, nil},
		{"banner cookiePolicyUrl", "PATCH", site + "/banner", 500, func(n int) any { return map[string]any{"cookiePolicyUrl": url(n)} }, nil},
		{"banner translation value", "PATCH", site + "/banner", 2000, func(n int) any {
			return map[string]any{"textTranslations": map[string]any{"de": map[string]any{"headline": s(n)}}}
		}, nil},
		{"banner regionRules", "PATCH", site + "/banner", banner.MaxRegionRules, func(n int) any {
			rules := make([]any, n)
			for i := range rules {
				rules[i] = map[string]any{"regions": []any{"FR"}, "defaultBehavior": "opt_in"}
			}
			return map[string]any{"regionRules": rules}
		}, nil},
		{"banner regionRules regions", "PATCH", site + "/banner", banner.MaxRuleRegions, func(n int) any {
			regions := make([]any, n)
			for i := range regions {
				regions[i] = "FR"
			}
			return map[string]any{"regionRules": []any{map[string]any{"regions": regions, "defaultBehavior": "opt_in"}}}
		}, nil},
		{"category name", "POST", site + "/categories", 100, func(n int) any { return map[string]any{"name": s(n)} }, nil},
		{"category description", "POST", site + "/categories", 500, func(n int) any { return map[string]any{"name": "d", "description": s(n)} }, nil},
		{"category nameTranslations value", "POST", site + "/categories", 2000, func(n int) any {
			return map[string]any{"name": "t", "nameTranslations": map[string]any{"fr": s(n)}}
		}, nil},
		{"category update name", "PATCH", site + "/categories/" + e.categoryID(id, "marketing"), 100, func(n int) any { return map[string]any{"name": s(n)} }, nil},
		{"category update description", "PATCH", site + "/categories/" + e.categoryID(id, "marketing"), 500, func(n int) any { return map[string]any{"description": s(n)} }, nil},
		{"category update descriptionTranslations value", "PATCH", site + "/categories/" + e.categoryID(id, "marketing"), 2000, func(n int) any {
			return map[string]any{"descriptionTranslations": map[string]any{"fr": s(n)}}
		}, nil},
		{"service slug", "POST", site + "/services", 100, func(n int) any { return svc(map[string]any{"slug": fmt.Sprintf("%03d", serial) + s(n-3)}) }, nil},
		{"service label", "POST", site + "/services", 200, func(n int) any { return svc(map[string]any{"label": s(n)}) }, nil},
		{"service description", "POST", site + "/services", 1000, func(n int) any { return svc(map[string]any{"description": s(n)}) }, nil},
		{"service categorySlug", "POST", site + "/services", 50, func(n int) any { return svc(map[string]any{"categorySlug": cat50 + s(n-50)}) }, nil},
		{"service serviceUrl", "POST", site + "/services", 500, func(n int) any { return svc(map[string]any{"serviceUrl": url(n)}) }, nil},
		{"service labelTranslations value", "POST", site + "/services", 2000, func(n int) any { return svc(map[string]any{"labelTranslations": map[string]any{"de": s(n)}}) }, nil},
		{"service descriptionTranslations value", "POST", site + "/services", 2000, func(n int) any {
			return svc(map[string]any{"descriptionTranslations": map[string]any{"de": s(n)}})
		}, nil},
		{"cookie name", "POST", site + "/services", 200, func(n int) any { return cookie(map[string]any{"name": s(n)}) }, nil},
		{"cookie duration", "POST", site + "/services", 100, func(n int) any { return cookie(map[string]any{"duration": s(n)}) }, nil},
		{"cookie description", "POST", site + "/services", 500, func(n int) any { return cookie(map[string]any{"description": s(n)}) }, nil},
		{"cookie descriptionTranslations value", "POST", site + "/services", 2000, func(n int) any {
			return cookie(map[string]any{"descriptionTranslations": map[string]any{"de": s(n)}})
		}, nil},
		{"import slug", "POST", site + "/services/import", 100, func(n int) any { return map[string]any{"slug": s(n)} }, nil},
		{"import categorySlug", "POST", site + "/services/import", 50, func(n int) any { return map[string]any{"slug": uniqLib(&serial), "categorySlug": cat50 + s(n-50)} }, nil},
		{"scan urls", "POST", site + "/scan", 10, func(n int) any { return map[string]any{"urls": urls(n)} }, nil},
		{"scan storefrontPassword", "POST", site + "/scan", 100, func(n int) any { return map[string]any{"storefrontPassword": s(n)} }, nil},
		{"consent records limit", "GET", site + "/consent-records", 100, nil, func(n int) string { return fmt.Sprintf("?limit=%d", n) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			send := func(n int) resp {
				path := c.path
				if c.query != nil {
					return e.do(c.method, path+c.query(n), nil)
				}
				return e.do(c.method, path, c.body(n))
			}
			if r := send(c.limit); r.status == 400 {
				t.Fatalf("at the limit %d: 400 %s", c.limit, r.body)
			} else if r.status >= 500 {
				t.Fatalf("at the limit: %d", r.status)
			}
			e.want(send(c.limit+1), 400, "validation_error")
		})
	}
	// lower bounds
	e.want(e.do("PATCH", site+"/banner", map[string]any{"cookieExpirationDays": 1}), 200)
	e.want(e.do("PATCH", site+"/banner", map[string]any{"cookieExpirationDays": 0}), 400, "validation_error")
	e.want(e.do("PATCH", site+"/banner", map[string]any{"colors": map[string]any{"text": "#"}}), 200)
	e.want(e.do("PATCH", site+"/banner", map[string]any{"colors": map[string]any{"text": ""}}), 400, "validation_error")
	e.want(e.do("POST", site+"/categories", map[string]any{"name": ""}), 400, "validation_error")
	e.want(e.do("PATCH", site+"/categories/"+e.categoryID(id, "marketing"), map[string]any{"sortOrder": 0}), 200)
	e.want(e.do("PATCH", site+"/categories/"+e.categoryID(id, "marketing"), map[string]any{"sortOrder": -1}), 400, "validation_error")
	e.want(e.do("POST", site+"/services", svc(map[string]any{"slug": ""})), 400, "validation_error")
	e.want(e.do("POST", site+"/services", svc(map[string]any{"label": ""})), 400, "validation_error")
	e.want(e.do("POST", site+"/services", svc(map[string]any{"categorySlug": ""})), 400, "validation_error")
	e.want(e.do("POST", site+"/services", cookie(map[string]any{"name": ""})), 400, "validation_error")
	e.want(e.do("POST", site+"/services", cookie(map[string]any{"duration": ""})), 400, "validation_error")
	e.want(e.do("POST", site+"/services/import", map[string]any{"slug": ""}), 400, "validation_error")
	e.want(e.do("POST", site+"/services/import", map[string]any{"slug": "hotjar", "categorySlug": ""}), 400, "validation_error")
	e.want(e.do("POST", site+"/scan", map[string]any{"storefrontPassword": "p"}), 201)
	e.want(e.do("GET", site+"/consent-records?limit=1&page=1", nil), 200)
	e.want(e.do("GET", site+"/consent-records?limit=0", nil), 400, "validation_error")
	e.want(e.do("GET", site+"/consent-records?page=0", nil), 400, "validation_error")
}

var libSlugs = []string{"segment", "mixpanel", "amplitude", "heap", "plausible", "fathom"}

func uniqLib(i *int) string {
	*i++
	return libSlugs[*i%len(libSlugs)]
}
