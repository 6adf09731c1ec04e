// Package coretest holds the contract suites that every adapter of a core port must pass, so
// that the in-memory fake, SQLite and Postgres behave the same.
package coretest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
)

// StoreContract runs the store contract against stores made by newStore; each subtest gets a
// fresh, empty, migrated store.
func StoreContract(t *testing.T, newStore func(t *testing.T) usecases.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s usecases.Store)
	}{
		{"Organizations", testOrganizations},
		{"APIKeys", testAPIKeys},
		{"Sites", testSites},
		{"SiteDeleteCascades", testSiteDeleteCascades},
		{"Banner", testBanner},
		{"BannerRegionRules", testBannerRegionRules},
		{"BannerTCF", testBannerTCF},
		{"BannerGPP", testBannerGPP},
		{"GVLVersions", testGVLVersions},
		{"VerifierCredentials", testVerifierCredentials},
		{"Experiments", testExperiments},
		{"ConsentVariant", testConsentVariant},
		{"ConsentTCF", testConsentTCF},
		{"ConsentGPP", testConsentGPP},
		{"Categories", testCategories},
		{"Services", testServices},
		{"ConcurrentServiceSlug", testConcurrentServiceSlug},
		{"Scans", testScans},
		{"ScanTransitions", testScanTransitions},
		{"ScanChanges", testScanChanges},
		{"Webhooks", testWebhooks},
		{"SiteSchedules", testSiteSchedules},
		{"LatestScanOfMode", testLatestScanOfMode},
		{"ConsentRecords", testConsentRecords},
		{"ConsentRegion", testConsentRegion},
		{"ConsentTotals", testConsentTotals},
		{"ConsentConcurrentWritersAndExport", testConsentConcurrentAndExport},
		{"ConsentMissingSite", testConsentMissingSite},
		{"ConsentIdempotencyKey", testConsentIdempotencyKey},
		{"ConsentChain", testConsentChain},
		{"ConsentRegionCounts", testConsentRegionCounts},
		{"ConsentErasure", testConsentErasure},
		{"ConsentRetention", testConsentRetention},
		{"ConsentCursorAndVisitor", testConsentCursorAndVisitor},
		{"ConsentSnapshots", testConsentSnapshots},
		{"MissingParents", testMissingParents},
		{"MalformedIDs", testMalformedIDs},
		{"Transactions", testTransactions},
		{"AllSites", testAllSites},
		{"ConcurrentBannerUpdates", testConcurrentBannerUpdates},
		{"Audit", testAudit},
		{"AuditRetention", testAuditRetention},
		{"Sessions", testSessions},
		{"Users", testUsers},
		{"SSO", testSSO},
		{"RecoveryCodes", testRecoveryCodes},
		{"Ping", func(t *testing.T, s usecases.Store) { must(t, s.Ping(ctx)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

var ctx = context.Background()

// now is microsecond-precise UTC, as every store keeps timestamps.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func id() string { return uuid.Must(uuid.NewV7()).String() }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if got := core.ErrorCode(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

type fixture struct {
	org  *identity.Organization
	site *core.Site
	cats map[string]*banner.Category
}

func seed(t *testing.T, s usecases.Store) fixture {
	t.Helper()
	o := &identity.Organization{ID: id(), Name: "acme", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, o))
	site := &core.Site{ID: id(), OrganizationID: o.ID, Name: "Shop", URL: "https://shop.example", ProjectKey: "pk_" + id(), CreatedAt: now(), UpdatedAt: now()}
	must(t, s.CreateSite(ctx, site))
	must(t, s.CreateBanner(ctx, &banner.Banner{
		ID: id(), SiteID: site.ID, Template: "floating", Position: "bottom_right",
		Colors: map[string]string{"primary": "#000"}, TextOverrides: map[string]string{}, TextTranslations: map[string]map[string]string{},
		DefaultBehavior: "opt_in", CloseButtonBehavior: "dismiss", CookieExpirationDays: 365, ConsentVersion: 1,
		CreatedAt: now(), UpdatedAt: now(),
	}))
	f := fixture{org: o, site: site, cats: map[string]*banner.Category{}}
	for i, slug := range []string{"essential", "statistics", "marketing"} {
		c := &banner.Category{ID: id(), SiteID: site.ID, Slug: slug, Name: slug, IsRequired: i == 0, IsDefault: true, SortOrder: i,
			NameTranslations: map[string]string{}, DescriptionTranslations: map[string]string{}, CreatedAt: now(), UpdatedAt: now()}
		must(t, s.CreateCategory(ctx, c))
		f.cats[slug] = c
	}
	return f
}

func newService(f fixture, slug, cat string, cookies ...string) *banner.Service {
	sid := id()
	svc := &banner.Service{ID: sid, SiteID: f.site.ID, CategoryID: f.cats[cat].ID, Slug: slug, Label: slug,
		LabelTranslations: map[string]string{}, DescriptionTranslations: map[string]string{},
		BlockingPatterns: []string{"x.example/" + slug}, CreatedAt: now(), UpdatedAt: now()}
	for _, c := range cookies {
		svc.Cookies = append(svc.Cookies, &banner.Cookie{ID: id(), ServiceID: sid, Name: c, Duration: "1 day", DescriptionTranslations: map[string]string{}, CreatedAt: now()})
	}
	return svc
}

func testOrganizations(t *testing.T, s usecases.Store) {
	n, err := s.CountOrganizations(ctx)
	must(t, err)
	if n != 0 {
		t.Fatalf("fresh store has %d organizations", n)
	}
	o := &identity.Organization{ID: id(), Name: "acme", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, o))
	got, err := s.Organization(ctx, o.ID)
	must(t, err)
	if got.Name != "acme" || !got.CreatedAt.Equal(o.CreatedAt) {
		t.Fatalf("organization round trip: %+v", got)
	}
	_, err = s.Organization(ctx, id())
	wantCode(t, err, core.CodeNotFound)
	k := &identity.APIKey{ID: id(), OrganizationID: o.ID, Name: "ci", Hash: identity.HashAPIKey("secret-secret-secret"), CreatedAt: now()}
	must(t, s.CreateAPIKey(ctx, k))
	got2, err := s.APIKeyByHash(ctx, k.Hash)
	must(t, err)
	if got2.OrganizationID != o.ID {
		t.Fatalf("key org %q", got2.OrganizationID)
	}
	_, err = s.APIKeyByHash(ctx, "nope")
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.CreateAPIKey(ctx, &identity.APIKey{ID: id(), OrganizationID: o.ID, Hash: k.Hash, CreatedAt: now()}), core.CodeConflict)
}

func testSites(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	other := seed(t, s)
	got, err := s.Site(ctx, f.org.ID, f.site.ID)
	must(t, err)
	if got.ProjectKey != f.site.ProjectKey || got.URL != f.site.URL {
		t.Fatalf("site round trip: %+v", got)
	}
	_, err = s.Site(ctx, other.org.ID, f.site.ID)
	wantCode(t, err, core.CodeNotFound) // another organization's site does not exist for it
	_, err = s.Site(ctx, f.org.ID, "not-a-uuid")
	wantCode(t, err, core.CodeNotFound)
	byKey, err := s.SiteByProjectKey(ctx, f.site.ProjectKey)
	must(t, err)
	if byKey.ID != f.site.ID {
		t.Fatal("site by project key")
	}
	dup := *f.site
	dup.ID = id()
	wantCode(t, s.CreateSite(ctx, &dup), core.CodeConflict)
	second := &core.Site{ID: id(), OrganizationID: f.org.ID, Name: "B", URL: "https://b.example", ProjectKey: "pk_" + id(), CreatedAt: now().Add(time.Second), UpdatedAt: now()}
	must(t, s.CreateSite(ctx, second))
	list, err := s.Sites(ctx, f.org.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != f.site.ID || list[1].ID != second.ID {
		t.Fatalf("sites of org: %d", len(list))
	}
	second.Name, second.URL = "B2", "https://b2.example"
	must(t, s.UpdateSite(ctx, second))
	got, err = s.Site(ctx, f.org.ID, second.ID)
	must(t, err)
	if got.Name != "B2" || got.URL != "https://b2.example" {
		t.Fatalf("update site: %+v", got)
	}
	wantCode(t, s.UpdateSite(ctx, &core.Site{ID: id()}), core.CodeNotFound)
	wantCode(t, s.DeleteSite(ctx, id()), core.CodeNotFound)
}

func testSiteDeleteCascades(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	keep := seed(t, s)
	must(t, s.CreateService(ctx, newService(f, "ga", "statistics", "_ga")))
	must(t, s.CreateService(ctx, newService(keep, "ga", "statistics", "_ga")))
	must(t, s.CreateScan(ctx, &scan.Scan{ID: id(), SiteID: f.site.ID, URL: "https://x", URLs: []string{"https://x"}, Status: scan.ScanPending, CreatedAt: now()}))
	must(t, s.CreateConsentRecord(ctx, &consent.ConsentRecord{ID: id(), SiteID: f.site.ID, VisitorID: "v", Jurisdiction: "none", CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1, Action: "accept_all", CreatedAt: now()}))
	must(t, s.DeleteSite(ctx, f.site.ID))
	_, err := s.Site(ctx, f.org.ID, f.site.ID)
	wantCode(t, err, core.CodeNotFound)
	_, err = s.Banner(ctx, f.site.ID)
	wantCode(t, err, core.CodeNotFound)
	for name, n := range map[string]func() (int, error){
		"categories": func() (int, error) { l, err := s.Categories(ctx, f.site.ID); return len(l), err },
		"services":   func() (int, error) { l, err := s.Services(ctx, f.site.ID); return len(l), err },
		"scans":      func() (int, error) { l, err := s.Scans(ctx, f.site.ID); return len(l), err },
		"consents": func() (int, error) {
			_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
			return total, err
		},
	} {
		got, err := n()
		must(t, err)
		if got != 0 {
			t.Errorf("%s left after site deletion: %d", name, got)
		}
	}
	svcs, err := s.Services(ctx, keep.site.ID)
	must(t, err)
	if len(svcs) != 1 || len(svcs[0].Cookies) != 1 {
		t.Fatal("deleting one site touched another")
	}
}

func testBanner(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	logo := "https://cdn.example/logo.png"
	b.Template, b.LogoURL, b.ConsentVersion, b.SiteWideBlocking, b.GCMExcludeVendor = "modal", &logo, 2, true, true
	b.Colors["text"] = "#111"
	b.TextTranslations["de"] = map[string]string{"headline": "Datenschutz"}
	label, dom := "Cookies", "example.com"
	b.ReopenButton, b.ReopenPosition, b.ReopenLabel, b.CookieDomain = true, "top_right", &label, &dom
	must(t, s.UpdateBanner(ctx, b))
	got, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if !got.ReopenButton || got.ReopenPosition != "top_right" || got.ReopenLabel == nil || *got.ReopenLabel != label ||
		got.CookieDomain == nil || *got.CookieDomain != dom {
		t.Fatalf("banner reopen settings round trip: %+v", got)
	}
	if got.Template != "modal" || got.LogoURL == nil || *got.LogoURL != logo || got.ConsentVersion != 2 ||
		!got.SiteWideBlocking || !got.GCMExcludeVendor || got.Colors["text"] != "#111" || got.TextTranslations["de"]["headline"] != "Datenschutz" {
		t.Fatalf("banner round trip: %+v", got)
	}
	if got.ConsentMode != banner.ConsentModeAdvanced { // one stored value, read by its two names
		t.Fatalf("consentMode %q with gcmExcludeVendor true, want advanced", got.ConsentMode)
	}
	got.LogoURL = nil
	must(t, s.UpdateBanner(ctx, got))
	got, err = s.Banner(ctx, f.site.ID)
	must(t, err)
	if got.LogoURL != nil {
		t.Fatal("logo not cleared")
	}
	_, err = s.Banner(ctx, id())
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.CreateBanner(ctx, got), core.CodeConflict)
}

func testCategories(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	cats, err := s.Categories(ctx, f.site.ID)
	must(t, err)
	if len(cats) != 3 || cats[0].Slug != "essential" || !cats[0].IsRequired || cats[2].Slug != "marketing" {
		t.Fatalf("categories: %d", len(cats))
	}
	c := &banner.Category{ID: id(), SiteID: f.site.ID, Slug: "social", Name: "Social", SortOrder: 3,
		NameTranslations: map[string]string{"de": "Sozial"}, DescriptionTranslations: map[string]string{}, CreatedAt: now(), UpdatedAt: now()}
	must(t, s.CreateCategory(ctx, c))
	dup := *c
	dup.ID = id()
	wantCode(t, s.CreateCategory(ctx, &dup), core.CodeConflict)
	c.Name, c.SortOrder, c.Description = "Social media", 7, "embeds"
	must(t, s.UpdateCategory(ctx, c))
	got, err := s.CategoryBySlug(ctx, f.site.ID, "social")
	must(t, err)
	if got.Name != "Social media" || got.SortOrder != 7 || got.NameTranslations["de"] != "Sozial" || got.Description != "embeds" {
		t.Fatalf("category round trip: %+v", got)
	}
	other := seed(t, s)
	_, err = s.Category(ctx, other.site.ID, c.ID)
	wantCode(t, err, core.CodeNotFound)
	_, err = s.CategoryBySlug(ctx, f.site.ID, "nope")
	wantCode(t, err, core.CodeNotFound)
	must(t, s.DeleteCategory(ctx, f.site.ID, c.ID))
	wantCode(t, s.DeleteCategory(ctx, f.site.ID, c.ID), core.CodeNotFound)
	wantCode(t, s.UpdateCategory(ctx, c), core.CodeNotFound)
}

func testServices(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	svc := newService(f, "google-analytics", "statistics", "_ga", "_ga_", "_gid")
	url := "https://analytics.example"
	svc.ServiceURL = &url
	must(t, s.CreateService(ctx, svc))
	got, err := s.Service(ctx, f.site.ID, svc.ID)
	must(t, err)
	if got.Slug != "google-analytics" || got.ServiceURL == nil || *got.ServiceURL != url || len(got.BlockingPatterns) != 1 {
		t.Fatalf("service round trip: %+v", got)
	}
	if len(got.Cookies) != 3 || got.Cookies[0].Name != "_ga" || got.Cookies[2].Name != "_gid" || got.Cookies[1].ServiceID != svc.ID {
		t.Fatalf("cookies lost or reordered: %+v", got.Cookies)
	}
	wantCode(t, s.CreateService(ctx, newService(f, "google-analytics", "marketing")), core.CodeConflict)
	must(t, s.CreateService(ctx, newService(f, "hotjar", "statistics")))
	list, err := s.Services(ctx, f.site.ID)
	must(t, err)
	if len(list) != 2 {
		t.Fatalf("services: %d", len(list))
	}
	n, err := s.CountServicesInCategory(ctx, f.cats["statistics"].ID)
	must(t, err)
	if n != 2 {
		t.Fatalf("count in category: %d", n)
	}
	other := seed(t, s)
	_, err = s.Service(ctx, other.site.ID, svc.ID)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.DeleteService(ctx, other.site.ID, svc.ID), core.CodeNotFound)
	must(t, s.DeleteService(ctx, f.site.ID, svc.ID))
	_, err = s.Service(ctx, f.site.ID, svc.ID)
	wantCode(t, err, core.CodeNotFound)
	// the slug is free again
	must(t, s.CreateService(ctx, newService(f, "google-analytics", "statistics")))
}

func testConcurrentServiceSlug(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreateService(ctx, newService(f, "same-slug", "marketing", "c1", "c2"))
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch core.ErrorCode(err) {
		case "":
			won++
		case core.CodeConflict:
		default:
			t.Errorf("concurrent create: want success or conflict, got %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creators won, want exactly 1", won)
	}
	list, err := s.Services(ctx, f.site.ID)
	must(t, err)
	if len(list) != 1 || len(list[0].Cookies) != 2 {
		t.Fatalf("after the race: %d services", len(list))
	}
}

func testScans(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	base := now()
	var ids []string
	for i, st := range []string{scan.ScanFailed, scan.ScanCompleted, scan.ScanPending} {
		sc := &scan.Scan{ID: id(), SiteID: f.site.ID, URL: "https://shop.example", URLs: []string{"https://shop.example"}, Status: st, Mode: core.ScanModes()[i], CreatedAt: base.Add(time.Duration(i) * time.Second)}
		must(t, s.CreateScan(ctx, sc))
		ids = append(ids, sc.ID)
	}
	list, err := s.Scans(ctx, f.site.ID)
	must(t, err)
	if len(list) != 3 || list[0].ID != ids[2] || list[2].ID != ids[0] {
		t.Fatal("scans not most recent first")
	}
	latest, err := s.LatestScan(ctx, f.site.ID, scan.ScanCompleted, scan.ScanFailed)
	must(t, err)
	if latest.ID != ids[1] {
		t.Fatal("latest finished scan")
	}
	_, err = s.LatestScan(ctx, f.site.ID, scan.ScanRunning)
	wantCode(t, err, core.CodeNotFound)
	sc, err := s.ScanByID(ctx, ids[2])
	must(t, err)
	fin := now()
	msg := "boom"
	sc.Status, sc.FinishedAt, sc.ErrorMessage, sc.PagesScanned = scan.ScanCompleted, &fin, &msg, 4
	sc.DetectedServices = []core.DetectedService{{Slug: "hotjar", Name: "Hotjar", Category: "statistics", TrackingIDs: []string{"123"}, Pages: []string{"https://shop.example/"}}}
	sc.UnrecognizedScripts = []core.UnrecognizedScript{{Src: "https://cdn.x/y.js", Domain: "x", Pages: []string{"https://shop.example/"}}}
	sc.DetectedServices[0].Cookies = []core.ObservedCookie{{Name: "_hjSessionUser_1", Domain: "shop.example", SeenAt: []string{"https://shop.example/"}}}
	status := 503
	sc.PageErrors = []core.PageError{{URL: "https://shop.example/down", Status: &status, Message: "answered 503"}}
	deep := core.ScanDeep
	sc.ModeUsed = &deep
	sc.DetectedServices[0].Cookies[0].SameSite, sc.DetectedServices[0].Cookies[0].Secure = "Lax", true
	sc.UnrecognizedCookies = []core.UnrecognizedCookie{{Kind: core.StorageLocal, Name: "cart-v2", Domain: "shop.example", Duration: "session", SeenAt: []string{"https://shop.example/"}}}
	sc.PreConsent = []core.PreConsentFinding{{Slug: "hotjar", Name: "Hotjar", Category: "statistics", Requests: []string{"https://static.hotjar.com/c/hotjar-1.js"},
		Cookies: []string{"_hjSessionUser_1"}, Storage: []string{}, Pages: []string{"https://shop.example/"}}}
	sc.Mentions = []core.Mention{{Slug: "tiktok-pixel", Name: "TikTok Pixel", Category: "marketing", TrackingIDs: []string{"CRETIRED000000000000"},
		Pages: []string{"https://shop.example/integrations"}}}
	must(t, s.UpdateScan(ctx, sc))
	got, err := s.Scan(ctx, f.site.ID, sc.ID)
	must(t, err)
	if got.Status != scan.ScanCompleted || got.PagesScanned != 4 || got.FinishedAt == nil || !got.FinishedAt.Equal(fin) ||
		len(got.DetectedServices) != 1 || got.DetectedServices[0].TrackingIDs[0] != "123" || len(got.UnrecognizedScripts) != 1 || *got.ErrorMessage != "boom" ||
		len(got.DetectedServices[0].Cookies) != 1 || got.DetectedServices[0].Cookies[0].Name != "_hjSessionUser_1" ||
		len(got.PageErrors) != 1 || got.PageErrors[0].Status == nil || *got.PageErrors[0].Status != 503 {
		t.Fatalf("scan round trip: %+v", got)
	}
	if got.Mode != core.ScanAuto || got.ModeUsed == nil || *got.ModeUsed != core.ScanDeep ||
		got.DetectedServices[0].Cookies[0].SameSite != "Lax" || !got.DetectedServices[0].Cookies[0].Secure ||
		len(got.UnrecognizedCookies) != 1 || got.UnrecognizedCookies[0].Kind != core.StorageLocal || got.UnrecognizedCookies[0].Name != "cart-v2" ||
		len(got.PreConsent) != 1 || got.PreConsent[0].Cookies[0] != "_hjSessionUser_1" || got.PreConsent[0].Requests[0] != "https://static.hotjar.com/c/hotjar-1.js" {
		t.Fatalf("deep scan fields round trip: mode %q used %v, unrecognized %+v, pre-consent %+v", got.Mode, got.ModeUsed, got.UnrecognizedCookies, got.PreConsent)
	}
	if len(got.Mentions) != 1 || got.Mentions[0].Slug != "tiktok-pixel" || got.Mentions[0].TrackingIDs[0] != "CRETIRED000000000000" {
		t.Fatalf("mentions round trip: %+v", got.Mentions)
	}
	pending, err := s.Scan(ctx, f.site.ID, ids[0])
	must(t, err)
	if pending.DetectedServices != nil || pending.PreConsent != nil || pending.UnrecognizedCookies != nil || pending.ModeUsed != nil {
		t.Fatal("a scan without results must have nil detectedServices, preConsent, unrecognizedCookies and modeUsed")
	}
	if pending.Mode != core.ScanStatic {
		t.Fatalf("mode %q, want %q", pending.Mode, core.ScanStatic)
	}
	other := seed(t, s)
	_, err = s.Scan(ctx, other.site.ID, sc.ID)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.UpdateScan(ctx, &scan.Scan{ID: id()}), core.CodeNotFound)
}

func testConsentRecords(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	other := seed(t, s)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 25 {
		must(t, s.CreateConsentRecord(ctx, &consent.ConsentRecord{
			ID: id(), SiteID: f.site.ID, VisitorID: fmt.Sprint("v", i), IPCountry: "DE", Jurisdiction: "gdpr",
			CategoriesConsented: map[string]bool{"essential": true, "statistics": i%2 == 0, "marketing": false},
			ConsentVersion:      1, Action: "custom", GPCSignal: i == 3, CreatedAt: base.Add(time.Duration(i) * time.Hour),
		}))
	}
	must(t, s.CreateConsentRecord(ctx, &consent.ConsentRecord{ID: id(), SiteID: other.site.ID, VisitorID: "o", Jurisdiction: "none",
		CategoriesConsented: map[string]bool{}, ConsentVersion: 1, Action: "reject_all", CreatedAt: base}))

	page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	must(t, err)
	if total != 25 || len(page) != 10 || page[0].VisitorID != "v24" || page[9].VisitorID != "v15" {
		t.Fatalf("page 1: total %d, %d records, first %q", total, len(page), page[0].VisitorID)
	}
	if !page[0].CategoriesConsented["statistics"] || page[0].IPCountry != "DE" || page[0].Action != "custom" {
		t.Fatalf("record round trip: %+v", page[0])
	}
	page, _, err = s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 3, Limit: 10})
	must(t, err)
	if len(page) != 5 || page[4].VisitorID != "v0" {
		t.Fatalf("last page: %d", len(page))
	}
	page, _, err = s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 4, Limit: 10})
	must(t, err)
	if len(page) != 0 {
		t.Fatal("page past the end is not empty")
	}
	from, to := base.Add(5*time.Hour), base.Add(10*time.Hour)
	page, total, err = s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, From: &from, To: &to, Page: 1, Limit: 100})
	must(t, err)
	if total != 4 || len(page) != 4 || page[0].VisitorID != "v9" || page[3].VisitorID != "v6" {
		t.Fatalf("exclusive date bounds: total %d", total)
	}
}

func testTransactions(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx usecases.Store) error {
		must(t, tx.CreateService(ctx, newService(f, "in-tx", "marketing", "c")))
		if _, err := tx.Service(ctx, f.site.ID, "x"); !core.IsNotFound(err) {
			t.Errorf("read inside tx: %v", err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx returned %v", err)
	}
	list, err := s.Services(ctx, f.site.ID)
	must(t, err)
	if len(list) != 0 {
		t.Fatal("rolled-back write is visible")
	}
	must(t, s.InTx(ctx, func(tx usecases.Store) error {
		return tx.CreateService(ctx, newService(f, "committed", "marketing"))
	}))
	list, err = s.Services(ctx, f.site.ID)
	must(t, err)
	if len(list) != 1 {
		t.Fatal("committed write is missing")
	}
}

// testAllSites: the deployment-wide site walk (core.SiteLister) sees every organization's sites
// in ID order, a page at a time.
func testAllSites(t *testing.T, s usecases.Store) {
	l, ok := s.(core.SiteLister)
	if !ok {
		t.Fatalf("%T does not implement core.SiteLister", s)
	}
	want := map[string]bool{}
	for range 5 {
		want[seed(t, s).site.ID] = true
	}
	var got []string
	after := ""
	for {
		page, err := l.AllSites(ctx, after, 2)
		must(t, err)
		for _, x := range page {
			if after != "" && x.ID <= after {
				t.Fatalf("not in ID order: %s after %s", x.ID, after)
			}
			got = append(got, x.ID)
			after = x.ID
		}
		if len(page) < 2 {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("walked %d sites, want %d", len(got), len(want))
	}
	for _, id := range got {
		if !want[id] {
			t.Fatalf("unknown site %s", id)
		}
	}
}

// testConcurrentBannerUpdates: read-modify-write updates of one banner in concurrent
// transactions, each raising the consent version, all take effect.
func testConcurrentBannerUpdates(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.InTx(ctx, func(tx usecases.Store) error {
				b, err := tx.Banner(ctx, f.site.ID)
				if err != nil {
					return err
				}
				b.ConsentVersion++
				b.TextOverrides[fmt.Sprint("k", i)] = "v"
				return tx.UpdateBanner(ctx, b)
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.ConsentVersion != 1+n || len(b.TextOverrides) != n {
		t.Fatalf("after %d concurrent updates: version %d, %d texts", n, b.ConsentVersion, len(b.TextOverrides))
	}
}
