package coretest

import (
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	scanpkg "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
)

// IDSpellingContract checks that a store knows each resource by one spelling of its ID, the
// canonical lower-case hyphenated UUID that core generates. Any other spelling of an existing
// ID (upper case, in braces, without hyphens, as a URN, with a space or a NUL byte) and any
// garbage finds nothing: lookups, updates and deletes are not_found and change nothing, writes
// naming a parent so spelled are not_found, listings are empty. A text key (project key, key
// hash, slug) holding bytes a database cannot store (NUL, invalid UTF-8) finds nothing either.
// Postgres reads many spellings into one uuid, SQLite compares text: without this contract the
// same request answers differently on each. No error is internal.
func IDSpellingContract(t *testing.T, newStore func(t *testing.T) usecases.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s usecases.Store)
	}{
		{"Lookups", testIDLookups},
		{"UpdatesAndDeletes", testIDUpdatesAndDeletes},
		{"Parents", testIDParents},
		{"Listings", testIDListings},
		{"TextKeys", testTextKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// spellings returns other spellings of the canonical ID c, and garbage.
func spellings(c string) map[string]string {
	return map[string]string{
		"upper":       strings.ToUpper(c),
		"braces":      "{" + c + "}",
		"no hyphens":  strings.ReplaceAll(c, "-", ""),
		"urn":         "urn:uuid:" + c,
		"space":       c + " ",
		"NUL":         c + "\x00",
		"NUL inside":  c[:8] + "\x00" + c[9:],
		"invalid utf": "\xff" + c[1:],
		"only NUL":    "\x00",
		"garbage":     "not-a-uuid",
		"empty":       "",
	}
}

// idFixture is a seeded site with a service and a scan.
type idFixture struct {
	fixture
	svc  *banner.Service
	scan *scanpkg.Scan
}

func seedIDs(t *testing.T, s usecases.Store) idFixture {
	t.Helper()
	f := idFixture{fixture: seed(t, s)}
	f.svc = newService(f.fixture, "analytics", "statistics", "_ga")
	must(t, s.CreateService(ctx, f.svc))
	f.scan = &scanpkg.Scan{ID: id(), SiteID: f.site.ID, URL: "https://shop.example", URLs: []string{"https://shop.example"}, Status: scanpkg.ScanPending, CreatedAt: now()}
	must(t, s.CreateScan(ctx, f.scan))
	must(t, s.CreateConsentRecord(ctx, consentAt(f.site.ID, now(), "v")))
	return f
}

func wantNotFound(t *testing.T, what, spelling string, err error) {
	t.Helper()
	if got := core.ErrorCode(err); got != core.CodeNotFound {
		t.Errorf("%s with the ID spelled %s: %v, want not_found", what, spelling, err)
	}
}

func testIDLookups(t *testing.T, s usecases.Store) {
	f := seedIDs(t, s)
	cat := f.cats["statistics"]
	check := func(canonical string, lookups func(v string) map[string]error) {
		for sp, v := range spellings(canonical) {
			for what, err := range lookups(v) {
				wantNotFound(t, what, sp, err)
			}
		}
	}
	check(f.org.ID, func(v string) map[string]error {
		return map[string]error{
			"Organization": second(s.Organization(ctx, v)),
			"Site by org":  second(s.Site(ctx, v, f.site.ID)),
		}
	})
	check(f.site.ID, func(v string) map[string]error {
		return map[string]error{
			"Site":             second(s.Site(ctx, f.org.ID, v)),
			"Banner":           second(s.Banner(ctx, v)),
			"Category by site": second(s.Category(ctx, v, cat.ID)),
			"CategoryBySlug":   second(s.CategoryBySlug(ctx, v, cat.Slug)),
			"Service by site":  second(s.Service(ctx, v, f.svc.ID)),
			"Scan by site":     second(s.Scan(ctx, v, f.scan.ID)),
			"LatestScan":       second(s.LatestScan(ctx, v, scanpkg.ScanPending)),
			"LatestScanOfMode": second(s.LatestScanOfMode(ctx, v, core.ScanVerify, scanpkg.ScanPending)),
		}
	})
	check(cat.ID, func(v string) map[string]error {
		return map[string]error{"Category": second(s.Category(ctx, f.site.ID, v))}
	})
	check(f.svc.ID, func(v string) map[string]error {
		return map[string]error{"Service": second(s.Service(ctx, f.site.ID, v))}
	})
	check(f.scan.ID, func(v string) map[string]error {
		return map[string]error{
			"Scan":     second(s.Scan(ctx, f.site.ID, v)),
			"ScanByID": second(s.ScanByID(ctx, v)),
		}
	})
}

func testIDUpdatesAndDeletes(t *testing.T, s usecases.Store) {
	f := seedIDs(t, s)
	cat := f.cats["statistics"]
	for sp, v := range spellings(f.site.ID) {
		x := *f.site
		x.ID, x.Name = v, "renamed"
		wantNotFound(t, "UpdateSite", sp, s.UpdateSite(ctx, &x))
		b, err := s.Banner(ctx, f.site.ID)
		must(t, err)
		b.SiteID, b.Position = v, "top"
		wantNotFound(t, "UpdateBanner", sp, s.UpdateBanner(ctx, b))
		c := *cat
		c.SiteID, c.Name = v, "renamed"
		wantNotFound(t, "UpdateCategory by site", sp, s.UpdateCategory(ctx, &c))
		wantNotFound(t, "DeleteCategory by site", sp, s.DeleteCategory(ctx, v, f.cats["marketing"].ID))
		wantNotFound(t, "DeleteService by site", sp, s.DeleteService(ctx, v, f.svc.ID))
		wantNotFound(t, "DeleteSite", sp, s.DeleteSite(ctx, v))
	}
	for sp, v := range spellings(cat.ID) {
		c := *cat
		c.ID, c.Name = v, "renamed"
		wantNotFound(t, "UpdateCategory", sp, s.UpdateCategory(ctx, &c))
	}
	for sp, v := range spellings(f.cats["marketing"].ID) {
		wantNotFound(t, "DeleteCategory", sp, s.DeleteCategory(ctx, f.site.ID, v))
	}
	for sp, v := range spellings(f.svc.ID) {
		wantNotFound(t, "DeleteService", sp, s.DeleteService(ctx, f.site.ID, v))
	}
	for sp, v := range spellings(f.scan.ID) {
		x := *f.scan
		x.ID, x.Status = v, scanpkg.ScanRunning
		wantNotFound(t, "UpdateScan", sp, s.UpdateScan(ctx, &x))
	}
	// Nothing changed.
	site, err := s.Site(ctx, f.org.ID, f.site.ID)
	must(t, err)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	got, err := s.Category(ctx, f.site.ID, cat.ID)
	must(t, err)
	_, err = s.Category(ctx, f.site.ID, f.cats["marketing"].ID)
	must(t, err)
	_, err = s.Service(ctx, f.site.ID, f.svc.ID)
	must(t, err)
	scan, err := s.ScanByID(ctx, f.scan.ID)
	must(t, err)
	if site.Name != f.site.Name || b.Position != "bottom_right" || got.Name != cat.Name || scan.Status != scanpkg.ScanPending {
		t.Fatalf("a write naming another spelling of an ID changed a resource: site %q, banner %q, category %q, scan %q",
			site.Name, b.Position, got.Name, scan.Status)
	}
}

func testIDParents(t *testing.T, s usecases.Store) {
	f := seedIDs(t, s)
	for sp, v := range spellings(f.org.ID) {
		wantNotFound(t, "CreateSite (org)", sp, s.CreateSite(ctx, &core.Site{ID: id(), OrganizationID: v, Name: "x", URL: "https://x.example",
			ProjectKey: "pk_" + id(), CreatedAt: now(), UpdatedAt: now()}))
		wantNotFound(t, "CreateAPIKey (org)", sp, s.CreateAPIKey(ctx, &identity.APIKey{ID: id(), OrganizationID: v, Hash: "h" + id(), CreatedAt: now()}))
	}
	other := seed(t, s) // a site without a service or a scan
	otherBanner, err := s.Banner(ctx, other.site.ID)
	must(t, err)
	for sp, v := range spellings(other.site.ID) {
		wantNotFound(t, "CreateBanner (site)", sp, s.CreateBanner(ctx, &banner.Banner{ID: id(), SiteID: v, Template: "floating", Position: "bottom_right",
			Colors: map[string]string{}, TextOverrides: map[string]string{}, TextTranslations: map[string]map[string]string{},
			DefaultBehavior: "opt_in", CloseButtonBehavior: "dismiss", CookieExpirationDays: 365, ConsentVersion: 1, CreatedAt: now(), UpdatedAt: now()}))
		wantNotFound(t, "CreateCategory (site)", sp, s.CreateCategory(ctx, &banner.Category{ID: id(), SiteID: v, Slug: "new", Name: "new",
			NameTranslations: map[string]string{}, DescriptionTranslations: map[string]string{}, CreatedAt: now(), UpdatedAt: now()}))
		svc := newService(other, "by-site", "marketing")
		svc.SiteID = v
		wantNotFound(t, "CreateService (site)", sp, s.CreateService(ctx, svc))
		wantNotFound(t, "CreateScan (site)", sp, s.CreateScan(ctx, &scanpkg.Scan{ID: id(), SiteID: v, URL: "https://x.example",
			URLs: []string{"https://x.example"}, Status: scanpkg.ScanPending, CreatedAt: now()}))
		wantNotFound(t, "CreateConsentRecord (site)", sp, s.CreateConsentRecord(ctx, consentAt(v, now(), "v")))
	}
	for sp, v := range spellings(other.cats["marketing"].ID) {
		svc := newService(other, "by-category", "marketing")
		svc.CategoryID = v
		wantNotFound(t, "CreateService (category)", sp, s.CreateService(ctx, svc))
	}
	// Nothing was written under any spelling.
	sites, err := s.Sites(ctx, f.org.ID)
	must(t, err)
	cats, err := s.Categories(ctx, other.site.ID)
	must(t, err)
	svcs, err := s.Services(ctx, other.site.ID)
	must(t, err)
	scans, err := s.Scans(ctx, other.site.ID)
	must(t, err)
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: other.site.ID, Page: 1, Limit: 10})
	must(t, err)
	b, err := s.Banner(ctx, other.site.ID)
	must(t, err)
	if len(sites) != 1 || len(cats) != 3 || len(svcs) != 0 || len(scans) != 0 || total != 0 || b.ID != otherBanner.ID {
		t.Fatalf("writes naming another spelling of a parent's ID wrote: %d sites, %d categories, %d services, %d scans, %d consents, banner %s",
			len(sites), len(cats), len(svcs), len(scans), total, b.ID)
	}
}

func testIDListings(t *testing.T, s usecases.Store) {
	f := seedIDs(t, s)
	for sp, v := range spellings(f.org.ID) {
		sites, err := s.Sites(ctx, v)
		if err != nil || len(sites) != 0 {
			t.Errorf("Sites with the organization ID spelled %s: %d sites, %v; want none", sp, len(sites), err)
		}
	}
	for sp, v := range spellings(f.site.ID) {
		cats, err := s.Categories(ctx, v)
		if err != nil || len(cats) != 0 {
			t.Errorf("Categories with the site ID spelled %s: %d, %v; want none", sp, len(cats), err)
		}
		svcs, err := s.Services(ctx, v)
		if err != nil || len(svcs) != 0 {
			t.Errorf("Services with the site ID spelled %s: %d, %v; want none", sp, len(svcs), err)
		}
		scans, err := s.Scans(ctx, v)
		if err != nil || len(scans) != 0 {
			t.Errorf("Scans with the site ID spelled %s: %d, %v; want none", sp, len(scans), err)
		}
		rs, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: v, Page: 1, Limit: 10})
		if err != nil || len(rs) != 0 || total != 0 {
			t.Errorf("ConsentRecords with the site ID spelled %s: %d of %d, %v; want none", sp, len(rs), total, err)
		}
		n := 0
		err = s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: v}, func(*consent.ConsentRecord) error { n++; return nil })
		if err != nil || n != 0 {
			t.Errorf("EachConsentRecord with the site ID spelled %s: %d, %v; want none", sp, n, err)
		}
	}
	for sp, v := range spellings(f.cats["statistics"].ID) {
		n, err := s.CountServicesInCategory(ctx, v)
		if err != nil || n != 0 {
			t.Errorf("CountServicesInCategory with the ID spelled %s: %d, %v; want 0", sp, n, err)
		}
	}
}

func testTextKeys(t *testing.T, s usecases.Store) {
	f := seedIDs(t, s)
	k := &identity.APIKey{ID: id(), OrganizationID: f.org.ID, Name: "ci", Hash: identity.HashAPIKey("secret-secret-secret"), CreatedAt: now()}
	must(t, s.CreateAPIKey(ctx, k))
	for sp, mangle := range map[string]func(string) string{
		"NUL":         func(s string) string { return s + "\x00" },
		"NUL inside":  func(s string) string { return s[:2] + "\x00" + s[2:] },
		"invalid utf": func(s string) string { return s + "\xff" },
	} {
		wantNotFound(t, "SiteByProjectKey", sp, second(s.SiteByProjectKey(ctx, mangle(f.site.ProjectKey))))
		wantNotFound(t, "APIKeyByHash", sp, second(s.APIKeyByHash(ctx, mangle(k.Hash))))
		wantNotFound(t, "CategoryBySlug", sp, second(s.CategoryBySlug(ctx, f.site.ID, mangle("essential"))))
	}
}
