package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/consentd/consentd/core"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	for _, path := range []string{"/api/v1/sites", "/api/v1/sites/" + id, "/api/v1/library/services", "/api/v1/sites/" + id + "/consent-records"} {
		e.want(e.raw("GET", path, "", ""), 401, "unauthorized")
		e.want(e.raw("GET", path, "cd_not-a-real-key", ""), 401, "unauthorized")
		r := e.raw("GET", path, "", "", "Authorization", "Basic Zm9vOmJhcg==")
		e.want(r, 401, "unauthorized")
		if r.header.Get("WWW-Authenticate") == "" {
			t.Error("401 without WWW-Authenticate")
		}
	}
	e.want(e.raw("POST", "/api/v1/sites", "", `{"name":"x","url":"https://x.example"}`), 401, "unauthorized")
}

func TestSites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.want(e.do("POST", "/api/v1/sites", map[string]any{"name": "Shop", "url": "https://shop.example"}), 201).obj(t)
	requireKeys(t, s, "id", "organizationId", "accountId", "name", "url", "projectKey", "createdAt", "updatedAt")
	if s["accountId"] != s["organizationId"] || len(s["projectKey"].(string)) < 16 {
		t.Fatalf("site: %v", s)
	}
	id := s["id"].(string)
	list := e.want(e.do("GET", "/api/v1/sites", nil), 200).arr(t)
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %v", list)
	}
	got := e.want(e.do("GET", "/api/v1/sites/"+id, nil), 200).obj(t)
	if got["projectKey"] != s["projectKey"] {
		t.Fatal("get site")
	}
	upd := e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"name": "Shop 2"}), 200).obj(t)
	if upd["name"] != "Shop 2" || upd["url"] != "https://shop.example" {
		t.Fatalf("patch: %v", upd)
	}
	e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"url": "ftp://x"}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/sites", map[string]any{"name": "x", "url": "not a url"}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/sites", map[string]any{"name": "x"}), 400, "validation_error")
	e.want(e.do("GET", "/api/v1/sites/00000000-0000-0000-0000-000000000000", nil), 404, "not_found")
	e.want(e.do("GET", "/api/v1/sites/garbage", nil), 404, "not_found")
	// site creation made the banner and the three default categories
	e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 200)
	if n := len(e.want(e.do("GET", "/api/v1/sites/"+id+"/categories", nil), 200).arr(t)); n != 3 {
		t.Fatalf("%d categories", n)
	}
	del := e.want(e.do("DELETE", "/api/v1/sites/"+id, nil), 200).obj(t)
	if del["success"] != true {
		t.Fatal("delete")
	}
	e.want(e.do("GET", "/api/v1/sites/"+id, nil), 404, "not_found")
	e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 404, "not_found")
	e.want(e.do("DELETE", "/api/v1/sites/"+id, nil), 404, "not_found")
}

func TestBanner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	path := "/api/v1/sites/" + id + "/banner"
	b := e.want(e.do("GET", path, nil), 200).obj(t)
	requireKeys(t, b, "id", "siteId", "template", "position", "colors", "textOverrides", "textTranslations", "logoUrl",
		"privacyPolicyUrl", "cookiePolicyUrl", "defaultBehavior", "closeButtonBehavior", "cookieExpirationDays",
		"consentVersion", "blockingRules", "gcmExcludeVendor", "storefrontIntegration", "createdAt", "updatedAt")
	if b["consentVersion"].(float64) != 1 || b["defaultBehavior"] != "opt_in" || b["logoUrl"] != nil {
		t.Fatalf("defaults: %v", b)
	}
	colors := b["colors"].(map[string]any)
	requireKeys(t, colors, "primary", "background", "text", "acceptButton", "rejectButton")
	rules := b["blockingRules"].(map[string]any)
	if rules["siteWide"] != true || b["closeButtonBehavior"] != "dismiss" {
		t.Fatal("a new site must be enforced: site-wide blocking on")
	}

	p := e.want(e.do("PATCH", path, map[string]any{
		"template": "modal", "position": "center", "colors": map[string]any{"primary": "#ff0000"},
		"textOverrides":    map[string]any{"headline": "Cookies?", "privacyLabel": "Privacy"},
		"textTranslations": map[string]any{"de": map[string]any{"headline": "Kekse?", "saveLabel": "Auswahl speichern"}},
		"privacyPolicyUrl": "https://shop.example/privacy", "cookiePolicyUrl": "https://shop.example/cookies",
		"logoUrl": "https://shop.example/logo.png", "defaultBehavior": "opt_out", "closeButtonBehavior": "reject_all",
		"cookieExpirationDays": 180, "gcmExcludeVendor": true, "storefrontIntegration": true,
	}), 200).obj(t)
	if p["template"] != "modal" || p["position"] != "center" || p["colors"].(map[string]any)["primary"] != "#ff0000" ||
		p["colors"].(map[string]any)["background"] == nil || p["textOverrides"].(map[string]any)["headline"] != "Cookies?" ||
		p["textTranslations"].(map[string]any)["de"].(map[string]any)["headline"] != "Kekse?" ||
		p["textTranslations"].(map[string]any)["de"].(map[string]any)["saveLabel"] != "Auswahl speichern" ||
		p["privacyPolicyUrl"] != "https://shop.example/privacy" || p["cookieExpirationDays"].(float64) != 180 ||
		p["gcmExcludeVendor"] != true || p["storefrontIntegration"] != true || p["defaultBehavior"] != "opt_out" {
		t.Fatalf("patched: %v", p)
	}
	// only supplied fields change; null clears a nullable field
	p = e.want(e.do("PATCH", path, map[string]any{"logoUrl": nil}), 200).obj(t)
	if p["logoUrl"] != nil || p["template"] != "modal" || p["privacyPolicyUrl"] != "https://shop.example/privacy" {
		t.Fatalf("after null: %v", p)
	}
	for _, bad := range []string{
		`{"template":"popup"}`, `{"position":"middle"}`, `{"defaultBehavior":"maybe"}`, `{"closeButtonBehavior":"x"}`,
		`{"colors":{"primary":""}}`, `{"colors":{"shadow":"#000"}}`, `{"textOverrides":{"tagline":"x"}}`, `{"privacyPolicyUrl":"not a url"}`,
		`{"cookieExpirationDays":0}`, `{"cookieExpirationDays":731}`, `{"cookieExpirationDays":"30"}`,
		`{"unknownField":1}`, `{"template":"modal"`, `[]`, `"x"`,
	} {
		if r := e.raw("PATCH", path, e.keyA, bad); r.status != 400 {
			t.Errorf("PATCH banner %s: %d", bad, r.status)
		} else {
			e.want(r, 400, "validation_error")
		}
	}
	e.want(e.do("PATCH", "/api/v1/sites/00000000-0000-0000-0000-000000000000/banner", map[string]any{"template": "modal"}), 404, "not_found")
}

func TestBannerValidationMessageNamesField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	r := e.want(e.raw("PATCH", "/api/v1/sites/"+id+"/banner", e.keyA, `{"cookieExpirationDays":9999}`), 400, "validation_error")
	if !strings.Contains(string(r.body), "cookieExpirationDays") {
		t.Fatalf("message does not name the field: %s", r.body)
	}
}

func TestCategories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	base := "/api/v1/sites/" + id + "/categories"
	cats := e.want(e.do("GET", base, nil), 200).arr(t)
	want := map[string]bool{"essential": true, "statistics": false, "marketing": false}
	for i, c := range cats {
		m := c.(map[string]any)
		requireKeys(t, m, "id", "siteId", "slug", "name", "description", "isRequired", "isDefault", "sortOrder", "createdAt", "updatedAt")
		if req, ok := want[m["slug"].(string)]; !ok || m["isRequired"] != req || m["isDefault"] != true {
			t.Fatalf("default category %v", m)
		}
		if m["slug"] == "essential" && (i != 0 || m["sortOrder"].(float64) != 0) {
			t.Fatal("essential must come first with sortOrder 0")
		}
	}
	c := e.want(e.do("POST", base, map[string]any{"name": "Social Média", "description": "embeds", "nameTranslations": map[string]string{"de": "Soziale Medien"}}), 201).obj(t)
	if c["slug"] != "social-media" || c["isRequired"] != false || c["isDefault"] != false || c["description"] != "embeds" {
		t.Fatalf("created: %v", c)
	}
	c2 := e.want(e.do("POST", base, map[string]any{"name": "Social media"}), 201).obj(t)
	if c2["slug"] != "social-media-2" || c2["description"] != "" {
		t.Fatalf("second slug: %v", c2["slug"])
	}
	cid := c["id"].(string)
	u := e.want(e.do("PATCH", base+"/"+cid, map[string]any{"name": "Social", "sortOrder": 9}), 200).obj(t)
	if u["name"] != "Social" || u["sortOrder"].(float64) != 9 || u["slug"] != "social-media" || u["description"] != "embeds" {
		t.Fatalf("updated: %v", u)
	}
	e.want(e.do("PATCH", base+"/"+cid, map[string]any{"sortOrder": -1}), 400, "validation_error")
	e.want(e.do("POST", base, map[string]any{"description": "no name"}), 400, "validation_error")
	e.want(e.do("POST", base, map[string]any{"name": " \t "}), 400, "validation_error")
	if sym := e.want(e.do("POST", base, map[string]any{"name": "!!!"}), 201).obj(t); !strings.HasPrefix(sym["slug"].(string), "category-") {
		t.Fatalf("a name of symbols gets a generated slug, got %v", sym["slug"])
	}
	e.want(e.do("DELETE", base+"/"+e.categoryID(id, "statistics"), nil), 400, "validation_error")
	// a category with services cannot go
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services", map[string]any{"slug": "x", "label": "X", "categorySlug": "social-media"}), 201)
	e.want(e.do("DELETE", base+"/"+cid, nil), 400, "validation_error")
	e.want(e.do("DELETE", base+"/"+c2["id"].(string), nil), 200)
	e.want(e.do("DELETE", base+"/"+c2["id"].(string), nil), 404, "not_found")
	e.want(e.do("PATCH", base+"/00000000-0000-0000-0000-000000000000", map[string]any{"name": "y"}), 404, "not_found")
}

func TestServices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	base := "/api/v1/sites/" + id + "/services"
	r := e.want(e.do("POST", base, map[string]any{
		"slug": "my-tracker", "label": "My tracker", "categorySlug": "statistics", "description": "ours",
		"serviceUrl": "https://tracker.example",
		"cookies":    []map[string]any{{"name": "_mt", "duration": "1 year", "description": "id"}, {"name": "_mt_s", "duration": "session"}},
	}), 201).obj(t)
	svc := r["service"].(map[string]any)
	requireKeys(t, svc, "id", "slug", "label", "categoryId")
	if r["cookiesCreated"].(float64) != 2 || svc["categoryId"] != e.categoryID(id, "statistics") {
		t.Fatalf("create: %v", r)
	}
	e.want(e.do("POST", base, map[string]any{"slug": "my-tracker", "label": "again", "categorySlug": "marketing"}), 409, "conflict")
	e.want(e.do("POST", base, map[string]any{"slug": "other", "label": "x", "categorySlug": "nope"}), 400, "validation_error")
	e.want(e.do("POST", base, map[string]any{"slug": "Bad_Slug", "label": "x", "categorySlug": "marketing"}), 400, "validation_error")

	imp := e.want(e.do("POST", base+"/import", map[string]any{"slug": "hotjar"}), 201).obj(t)
	lib := e.want(e.do("GET", "/api/v1/library/services/hotjar", nil), 200).obj(t)
	if imp["cookiesCreated"].(float64) != float64(len(lib["cookies"].([]any))) || imp["cookiesCreated"].(float64) == 0 {
		t.Fatalf("import cookies: %v vs library %d", imp["cookiesCreated"], len(lib["cookies"].([]any)))
	}
	if imp["blockingRulesAdded"].(float64) != 0 {
		t.Fatal("hotjar is covered by a built-in rule: no rule added")
	}
	imp = e.want(e.do("POST", base+"/import", map[string]any{"slug": "mixpanel", "categorySlug": "marketing"}), 201).obj(t)
	if imp["blockingRulesAdded"].(float64) != 1 || imp["service"].(map[string]any)["categoryId"] != e.categoryID(id, "marketing") {
		t.Fatalf("import mixpanel: %v", imp)
	}
	imp = e.want(e.do("POST", base+"/import", map[string]any{"slug": "stripe"}), 201).obj(t)
	if imp["blockingRulesAdded"].(float64) != 0 {
		t.Fatal("an essential service gets no blocking rule")
	}
	e.want(e.do("POST", base+"/import", map[string]any{"slug": "hotjar"}), 409, "conflict")
	e.want(e.do("POST", base+"/import", map[string]any{"slug": "no-such-service"}), 404, "not_found")
	e.want(e.do("POST", base+"/import", map[string]any{"slug": "segment", "categorySlug": "nope"}), 400, "validation_error")

	list := e.want(e.do("GET", base, nil), 200).arr(t)
	if len(list) != 4 {
		t.Fatalf("%d services", len(list))
	}
	first := list[0].(map[string]any)
	requireKeys(t, first, "id", "siteId", "categoryId", "slug", "label", "description", "privacyPolicyUrl", "logoUrl", "createdAt", "updatedAt", "cookies")
	ck := first["cookies"].([]any)[0].(map[string]any)
	requireKeys(t, ck, "id", "serviceId", "name", "description", "duration", "createdAt")

	// the banner's blocking rules now hold mixpanel back under marketing
	rules := e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 200).obj(t)["blockingRules"].(map[string]any)["rules"].([]any)
	found := false
	for _, r := range rules {
		m := r.(map[string]any)
		if m["serviceSlug"] == "mixpanel" && m["categorySlug"] == "marketing" && len(m["patterns"].([]any)) > 0 {
			found = true
		}
		if m["serviceSlug"] == "stripe" {
			t.Fatal("essential stripe has a blocking rule")
		}
	}
	if !found {
		t.Fatalf("no mixpanel rule in %v", rules)
	}

	sid := svc["id"].(string)
	e.want(e.do("DELETE", base+"/"+sid, nil), 200)
	e.want(e.do("DELETE", base+"/"+sid, nil), 404, "not_found")
	e.want(e.do("POST", base, map[string]any{"slug": "my-tracker", "label": "back", "categorySlug": "marketing"}), 201)
}

func TestLibrary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	all := e.want(e.do("GET", "/api/v1/library/services", nil), 200).obj(t)["services"].([]any)
	if len(all) < 250 {
		t.Fatalf("library has %d services", len(all))
	}
	requireKeys(t, all[0].(map[string]any), "slug", "label", "description", "category", "logo", "cookieCount")
	hits := e.want(e.do("GET", "/api/v1/library/services?q=hotjar", nil), 200).obj(t)["services"].([]any)
	if len(hits) == 0 || hits[0].(map[string]any)["slug"] != "hotjar" {
		t.Fatalf("search ranking: %v", hits)
	}
	byCookie := e.want(e.do("GET", "/api/v1/library/services?q=_ga", nil), 200).obj(t)["services"].([]any)
	if len(byCookie) == 0 {
		t.Fatal("search by cookie name found nothing")
	}
	none := e.want(e.do("GET", "/api/v1/library/services?q=zzzz-no-such-thing", nil), 200).obj(t)["services"].([]any)
	if len(none) != 0 {
		t.Fatal("nonsense query matched")
	}
	d := e.want(e.do("GET", "/api/v1/library/services/google-analytics", nil), 200).obj(t)
	requireKeys(t, d, "slug", "label", "description", "category", "logo", "serviceUrl", "cookies")
	if _, ok := d["cookieCount"]; ok {
		t.Fatal("detail has no cookieCount")
	}
	requireKeys(t, d["cookies"].([]any)[0].(map[string]any), "name", "duration", "description")
	e.want(e.do("GET", "/api/v1/library/services/nope", nil), 404, "not_found")
}

func TestScans(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	base := "/api/v1/sites/" + id
	s := e.want(e.raw("POST", base+"/scan", e.keyA, ""), 201).obj(t)
	requireKeys(t, s, "id", "siteId", "url", "status", "detectedServices", "unrecognizedScripts", "errorMessage", "createdAt")
	if s["status"] != "pending" || s["detectedServices"] != nil || s["unrecognizedScripts"] != nil || s["errorMessage"] != nil || s["url"] != "https://shop.example" {
		t.Fatalf("trigger: %v", s)
	}
	if len(e.queue.jobs) != 1 || e.queue.jobs[0].ScanID != s["id"] {
		t.Fatal("scan not enqueued")
	}
	s2 := e.want(e.do("POST", base+"/scan", map[string]any{"url": "https://shop.example/a", "urls": []string{"https://shop.example/b"}, "storefrontPassword": "pw"}), 201).obj(t)
	if s2["url"] != "https://shop.example/a" || e.queue.jobs[1].StorefrontPassword != "pw" || len(e.queue.jobs[1].URLs) != 2 {
		t.Fatalf("trigger with body: %v %v", s2, e.queue.jobs[1])
	}
	e.want(e.do("POST", base+"/scan", map[string]any{"url": "javascript:alert(1)"}), 400, "validation_error")
	e.want(e.do("POST", base+"/scan", map[string]any{"storefrontPassword": ""}), 400, "validation_error")

	list := e.want(e.do("GET", base+"/scans", nil), 200).arr(t)
	if len(list) != 2 || list[0].(map[string]any)["id"] != s2["id"] {
		t.Fatal("scans not most recent first")
	}
	sid := s["id"].(string)
	e.want(e.do("POST", base+"/scans/"+sid+"/configure", nil), 400, "validation_error")

	// a worker completes the first scan
	ctx := sysCtx
	if _, err := e.m.ScanWorker.StartScan(ctx, sid); err != nil {
		t.Fatal(err)
	}
	if err := e.m.ScanWorker.CompleteScan(ctx, sid, &core.CrawlResult{PagesScanned: 3,
		DetectedServices: []core.DetectedService{
			{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics", TrackingIDs: []string{"G-ABC123"}, Pages: []string{"https://shop.example/"}},
			{Slug: "mixpanel", Name: "Mixpanel", Category: "statistics"},
			{Slug: "stripe", Name: "Stripe", Category: "essential"},
		},
		UnrecognizedScripts: []core.UnrecognizedScript{{Src: "https://cdn.unknown.example/x.js", Domain: "unknown.example"}},
	}); err != nil {
		t.Fatal(err)
	}
	got := e.want(e.do("GET", base+"/scans/"+sid, nil), 200).obj(t)
	if got["status"] != "completed" || len(got["detectedServices"].([]any)) != 3 || got["unrecognizedScripts"].([]any)[0].(map[string]any)["src"] == nil {
		t.Fatalf("completed scan: %v", got)
	}
	ds := got["detectedServices"].([]any)[0].(map[string]any)
	requireKeys(t, ds, "slug", "name", "category", "trackingIds", "pages")

	cfg := e.want(e.do("POST", base+"/scans/"+sid+"/configure", nil), 200).obj(t)
	if cfg["created"].(float64) != 3 || len(cfg["services"].([]any)) != 3 || cfg["blockingRulesAdded"].(float64) != 1 {
		t.Fatalf("configure: %v", cfg)
	}
	requireKeys(t, cfg["services"].([]any)[0].(map[string]any), "id", "slug", "label", "categoryId")
	again := e.want(e.do("POST", base+"/scans/"+sid+"/configure", nil), 200).obj(t)
	if again["created"].(float64) != 0 || len(again["services"].([]any)) != 0 {
		t.Fatalf("configure is not idempotent: %v", again)
	}

	tr := e.want(e.do("GET", base+"/trackers", nil), 200).obj(t)
	requireKeys(t, tr, "scan", "lastCompletedAt", "trackers", "siteWideBlocking")
	trackers := tr["trackers"].([]any)
	if len(trackers) != 2 || tr["scan"].(map[string]any)["status"] != "completed" {
		t.Fatalf("trackers: %v", tr)
	}
	requireKeys(t, trackers[0].(map[string]any), "slug", "label", "category", "trackingIds")
	requireKeys(t, tr["scan"].(map[string]any), "id", "status", "error", "at")

	// a later failed scan is reported, the trackers stay those of the last completed one
	sid2 := s2["id"].(string)
	if err := e.m.ScanWorker.FailScan(ctx, sid2, "connection refused"); err != nil {
		t.Fatal(err)
	}
	tr = e.want(e.do("GET", base+"/trackers", nil), 200).obj(t)
	if tr["scan"].(map[string]any)["status"] != "failed" || tr["scan"].(map[string]any)["error"] != "connection refused" || len(tr["trackers"].([]any)) != 2 || tr["lastCompletedAt"] == nil {
		t.Fatalf("trackers after failure: %v", tr)
	}
	e.want(e.do("POST", base+"/scans/"+sid2+"/configure", nil), 400, "validation_error")
	e.want(e.do("GET", base+"/scans/00000000-0000-0000-0000-000000000000", nil), 404, "not_found")
	e.want(e.do("POST", base+"/scans/00000000-0000-0000-0000-000000000000/configure", nil), 404, "not_found")
}

func TestScriptBlockingRaisesConsentVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	version := func() float64 {
		return e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 200).obj(t)["consentVersion"].(float64)
	}
	put := func(on bool) {
		r := e.want(e.do("PUT", "/api/v1/sites/"+id+"/script-blocking", map[string]any{"enabled": on}), 200).obj(t)
		if r["success"] != true {
			t.Fatal("no success")
		}
	}
	put(true) // already on (a new site's default): nothing changes
	if v := version(); v != 1 {
		t.Fatalf("version %v after a no-op", v)
	}
	put(false)
	put(false)
	if v := version(); v != 2 {
		t.Fatalf("version %v after turning off", v)
	}
	if tr := e.want(e.do("GET", "/api/v1/sites/"+id+"/trackers", nil), 200).obj(t); tr["siteWideBlocking"] != false || tr["scan"] != nil {
		t.Fatalf("trackers: %v", tr)
	}
	put(true)
	if v := version(); v != 3 {
		t.Fatalf("version %v after turning on", v)
	}
	e.want(e.do("PUT", "/api/v1/sites/"+id+"/script-blocking", map[string]any{}), 400, "validation_error")
}

func TestConsentRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/categories", map[string]any{"name": "Social"}), 201)
	pub := "/api/v1/public/" + pk + "/consent"
	base := "/api/v1/sites/" + id + "/consent-records"
	// The answer is the receipt only; the stored record is read back from the listing.
	stored := func(receipt map[string]any) map[string]any {
		t.Helper()
		requireKeys(t, receipt, "id", "visitorId", "recordHash", "snapshotHash", "createdAt")
		for _, k := range []string{"visitorSalt", "visitorHash", "batchHash", "prevBatchHash", "batchSeq", "batchIndex"} {
			if _, ok := receipt[k]; ok {
				t.Fatalf("the receipt carries %s: %v", k, receipt)
			}
		}
		recs := e.want(e.do("GET", base+"?limit=1", nil), 200).obj(t)["records"].([]any)
		r := recs[0].(map[string]any)
		if r["id"] != receipt["id"] || r["recordHash"] != receipt["recordHash"] || r["visitorId"] != receipt["visitorId"] {
			t.Fatalf("receipt %v for record %v", receipt, r)
		}
		return r
	}
	r := stored(e.want(e.raw("POST", pub, "", `{"categories":{"statistics":true},"consentVersion":1}`, "X-Country", "de"), 201).obj(t))
	requireKeys(t, r, "id", "siteId", "visitorId", "ipCountry", "jurisdiction", "categoriesConsented", "gpcSignal", "doNotSell", "consentVersion", "createdAt", "action")
	cc := r["categoriesConsented"].(map[string]any)
	if cc["essential"] != true || cc["statistics"] != true || cc["marketing"] != false || cc["social"] != false ||
		r["jurisdiction"] != "gdpr" || r["ipCountry"] != "DE" || r["action"] != "custom" || r["visitorId"] == "" {
		t.Fatalf("record: %v", r)
	}
	r = stored(e.want(e.raw("POST", pub, "", `{"visitorId":"v-1","categories":{"essential":false,"statistics":false},"consentVersion":1}`, "X-Country", "US", "Sec-GPC", "1"), 201).obj(t))
	if r["jurisdiction"] != "ccpa" || r["gpcSignal"] != true || r["doNotSell"] != true || r["categoriesConsented"].(map[string]any)["essential"] != true || r["action"] != "reject_all" {
		t.Fatalf("gpc record: %v", r)
	}
	// A decision on a banner version the site has not shown is refused with the error body.
	e.want(e.raw("POST", pub, "", `{"categories":{"statistics":true,"marketing":true,"social":true},"consentVersion":2,"action":"accept_all"}`, "X-Country", "JP"), 400, "validation_error")
	e.want(e.raw("POST", pub, "", `{"categories":{},"consentVersion":99}`), 400, "validation_error")
	e.want(e.do("PUT", "/api/v1/sites/"+id+"/script-blocking", map[string]any{"enabled": !e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 200).obj(t)["blockingRules"].(map[string]any)["siteWide"].(bool)}), 200)
	r = stored(e.want(e.raw("POST", pub, "", `{"categories":{"statistics":true,"marketing":true,"social":true},"consentVersion":2,"action":"accept_all"}`, "X-Country", "JP"), 201).obj(t))
	if r["jurisdiction"] != "none" || r["action"] != "accept_all" || r["consentVersion"].(float64) != 2 {
		t.Fatalf("record: %v", r)
	}
	// A record cannot contradict itself: reject_all with a category on is refused, never stored.
	for _, body := range []string{
		`{"categories":{"statistics":true,"marketing":true},"consentVersion":1,"action":"reject_all"}`,
		`{"categories":{"statistics":true,"marketing":false,"social":true},"consentVersion":1,"action":"accept_all"}`,
	} {
		err := e.want(e.raw("POST", pub, "", body), 400, "validation_error").obj(t)["error"].(map[string]any)
		if !strings.HasPrefix(err["message"].(string), "categories.") {
			t.Fatalf("%s: %v", body, err)
		}
	}
	e.want(e.raw("POST", pub, "", `{"categories":{"unknown":true},"consentVersion":1}`), 400, "validation_error")
	e.want(e.raw("POST", pub, "", `{"categories":{},"consentVersion":0}`), 400, "validation_error")
	e.want(e.raw("POST", pub, "", `{"categories":{},"consentVersion":1,"visitorId":"`+strings.Repeat("v", 101)+`"}`), 400, "validation_error")
	e.want(e.raw("POST", pub, "", `{"categories":{},"consentVersion":1,"action":"maybe"}`), 400, "validation_error")
	e.want(e.raw("POST", "/api/v1/public/pk_nope/consent", "", `{"categories":{},"consentVersion":1}`), 404, "not_found")

	page := e.want(e.do("GET", base, nil), 200).obj(t)
	requireKeys(t, page, "records", "total", "page", "limit")
	recs := page["records"].([]any)
	if page["total"].(float64) != 3 || page["page"].(float64) != 1 || page["limit"].(float64) != 50 || len(recs) != 3 ||
		recs[0].(map[string]any)["action"] != "accept_all" {
		t.Fatalf("list: %v", page)
	}
	page = e.want(e.do("GET", base+"?page=2&limit=2", nil), 200).obj(t)
	if len(page["records"].([]any)) != 1 || page["total"].(float64) != 3 {
		t.Fatalf("page 2: %v", page)
	}
	page = e.want(e.do("GET", base+"?from=2000-01-01&to=2001-01-01T00:00:00Z", nil), 200).obj(t)
	if page["total"].(float64) != 0 {
		t.Fatal("date filter")
	}
	for _, q := range []string{"page=0", "page=x", "limit=0", "limit=101", "limit=-5", "from=yesterday", "to=2026-13-01"} {
		e.want(e.do("GET", base+"?"+q, nil), 400, "validation_error")
	}
}

func TestPublicConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "mixpanel"}), 201)
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "stripe"}), 201)
	r := e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "X-Country", "FR", "Origin", "https://shop.example"), 200)
	if r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("ETag") == "" {
		t.Fatalf("headers: %v", r.header)
	}
	cfg := r.obj(t)
	requireKeys(t, cfg, "projectKey", "jurisdiction", "banner", "categories", "blockingRules")
	if cfg["jurisdiction"] != "gdpr" {
		t.Fatal("jurisdiction")
	}
	cats := cfg["categories"].([]any)
	if len(cats) != 3 || len(cats[0].(map[string]any)["services"].([]any)) != 1 {
		t.Fatalf("categories: %v", cats)
	}
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "X-Country", "FR", "If-None-Match", r.header.Get("ETag")), 304)
	e.want(e.raw("GET", "/api/v1/public/nope/config", "", ""), 404, "not_found")
	pre := e.raw("OPTIONS", "/api/v1/public/"+pk+"/consent", "", "", "Origin", "https://shop.example", "Access-Control-Request-Method", "POST")
	if pre.status != 204 || !strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d %v", pre.status, pre.header)
	}
}

func TestSetupSnippet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	for _, fw := range []string{"", "script", "react", "next", "cloudflare-worker"} {
		q := ""
		if fw != "" {
			q = "?framework=" + fw
		}
		s := e.want(e.do("GET", "/api/v1/sites/"+id+"/setup-snippet"+q, nil), 200).obj(t)
		requireKeys(t, s, "framework", "code", "instructions")
		code := s["code"].(string)
		if fw == "cloudflare-worker" {
			// The Worker applies the site's rule set; the pages still need the tag, which its
			// instructions carry.
			if !strings.Contains(code, `"`+e.srv.URL+"/api/v1/public/"+pk+`/edge"`) || !strings.Contains(code, "HTMLRewriter") || s["framework"] != fw {
				t.Fatalf("worker snippet lacks the rule set's URL: %s", code)
			}
			code = s["instructions"].(string)
		}
		if !strings.Contains(code, pk) || !strings.Contains(code, e.srv.URL+"/api/v1/public/"+pk+"/loader.js") {
			t.Fatalf("%s snippet lacks key or src: %s", fw, code)
		}
		if fw == "" && s["framework"] != "script" {
			t.Fatal("default framework is script")
		}
	}
	e.want(e.do("GET", "/api/v1/sites/"+id+"/setup-snippet?framework=vue", nil), 400, "validation_error")
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.want(e.do("GET", "/api/v1/nope", nil), 404, "not_found")
	r := e.do("DELETE", "/api/v1/sites", nil)
	if r.status < 400 || r.status >= 500 {
		t.Fatalf("DELETE /sites: %d", r.status)
	}
	e.want(r, r.status)
	// An oversized body is refused and the connection ended (smuggle_test.go checks that on a
	// raw socket). A client still writing may see the connection reset before the 413.
	big := `{"name":"` + strings.Repeat("x", 2<<20) + `","url":"https://x.example"}`
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/sites", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer "+e.keyA)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		if !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "broken pipe") {
			t.Fatalf("oversized body: %v", err)
		}
		return
	}
	res.Body.Close()
	if res.StatusCode != 413 && res.StatusCode != 400 {
		t.Fatalf("oversized body: %d", res.StatusCode)
	}
}

func TestErrorBodiesOnGarbage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	paths := []struct{ method, path string }{
		{"POST", "/api/v1/sites"}, {"PATCH", "/api/v1/sites/" + id}, {"PATCH", "/api/v1/sites/" + id + "/banner"},
		{"POST", "/api/v1/sites/" + id + "/categories"}, {"POST", "/api/v1/sites/" + id + "/services"},
		{"POST", "/api/v1/sites/" + id + "/services/import"}, {"POST", "/api/v1/sites/" + id + "/scan"},
		{"PUT", "/api/v1/sites/" + id + "/script-blocking"}, {"POST", "/api/v1/public/" + pk + "/consent"},
	}
	bodies := []string{`{`, `null`, `[1,2]`, `{"a":`, "\x00\xff", `{"name":{"$ne":1}}`, `{"slug":1e400}`, `{"categories":{"essential":"yes"},"consentVersion":1}`, fmt.Sprintf(`{"x":"%s"}`, strings.Repeat("é", 5000))}
	for _, p := range paths {
		for _, b := range bodies {
			key := e.keyA
			if strings.Contains(p.path, "/public/") {
				key = ""
			}
			r := e.raw(p.method, p.path, key, b)
			if r.status != 400 && r.status != 413 {
				t.Errorf("%s %s with %q: %d %s", p.method, p.path, b, r.status, r.body)
				continue
			}
			e.want(r, r.status, "validation_error")
		}
	}
}

func TestResponsesAreCompressed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	r := e.raw("GET", "/api/v1/library/services", e.keyA, "", "Accept-Encoding", "gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("library listing: %d, Content-Encoding %q", r.status, r.header.Get("Content-Encoding"))
	}
	r = e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "Accept-Encoding", "gzip")
	if r.header.Get("Content-Encoding") != "gzip" || r.header.Get("ETag") == "" {
		t.Fatalf("public config: Content-Encoding %q, ETag %q", r.header.Get("Content-Encoding"), r.header.Get("ETag"))
	}
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "Accept-Encoding", "gzip", "If-None-Match", r.header.Get("ETag")), 304)
	// the consent receipt is small: sent as it is, without the compressor's buffering
	r = e.want(e.raw("POST", "/api/v1/public/"+pk+"/consent", "", `{"categories":{},"consentVersion":1}`, "Accept-Encoding", "gzip"), 201)
	if ce := r.header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("consent receipt: Content-Encoding %q", ce)
	}
}

// TestConcurrentCategoryCreates: categories created at once with one name all succeed, each
// with its own slug.
func TestConcurrentCategoryCreates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	const n = 6
	slugs := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", "/api/v1/sites/"+id+"/categories", map[string]any{"name": "Social"})
			if r.status != 201 {
				t.Errorf("concurrent create: %d %s", r.status, r.body)
				return
			}
			slugs <- r.obj(t)["slug"].(string)
		}()
	}
	wg.Wait()
	close(slugs)
	seen := map[string]bool{}
	for s := range slugs {
		if seen[s] {
			t.Fatalf("slug %s given twice", s)
		}
		seen[s] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct slugs, want %d", len(seen), n)
	}
}

// TestBannerConsentMode: consentMode is gcmExcludeVendor by Google's name: basic by default,
// either name sets both, and a request giving both must agree.
func TestBannerConsentMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	path := "/api/v1/sites/" + id + "/banner"
	b := e.want(e.do("GET", path, nil), 200).obj(t)
	if b["consentMode"] != "basic" || b["gcmExcludeVendor"] != false {
		t.Fatalf("default: consentMode %v, gcmExcludeVendor %v", b["consentMode"], b["gcmExcludeVendor"])
	}
	for _, c := range []struct {
		patch map[string]any
		mode  string
		gcm   bool
	}{
		{map[string]any{"consentMode": "advanced"}, "advanced", true},
		{map[string]any{"consentMode": "basic"}, "basic", false},
		{map[string]any{"gcmExcludeVendor": true}, "advanced", true},
		{map[string]any{"gcmExcludeVendor": false, "consentMode": "basic"}, "basic", false},
	} {
		p := e.want(e.do("PATCH", path, c.patch), 200).obj(t)
		if p["consentMode"] != c.mode || p["gcmExcludeVendor"] != c.gcm {
			t.Errorf("PATCH %v: consentMode %v, gcmExcludeVendor %v", c.patch, p["consentMode"], p["gcmExcludeVendor"])
		}
		if g := e.want(e.do("GET", path, nil), 200).obj(t); g["consentMode"] != c.mode {
			t.Errorf("GET after %v: consentMode %v", c.patch, g["consentMode"])
		}
	}
	for _, bad := range []string{`{"consentMode":"full"}`, `{"consentMode":"advanced","gcmExcludeVendor":false}`} {
		r := e.want(e.raw("PATCH", path, e.keyA, bad), 400, "validation_error")
		if !strings.Contains(string(r.body), "consentMode") {
			t.Errorf("PATCH %s: the message does not name consentMode: %s", bad, r.body)
		}
	}
}
