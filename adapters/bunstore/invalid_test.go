package bunstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	corebanner "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	scanpkg "github.com/consentd/consentd/core/scan"
)

// invalidFixture is an organization with a site, a category and a scan.
type invalidFixture struct {
	org  *identity.Organization
	site *core.Site
	cat  *corebanner.Category
	scan *scanpkg.Scan
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

func seedInvalid(t *testing.T, s *bunstore.Store) invalidFixture {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	f := invalidFixture{org: &identity.Organization{ID: newID(), Name: "acme", CreatedAt: now}}
	f.site = &core.Site{ID: newID(), OrganizationID: f.org.ID, Name: "Shop", URL: "https://shop.example", ProjectKey: "pk_" + newID(), CreatedAt: now, UpdatedAt: now}
	f.cat = category(f.site.ID, "essential")
	f.scan = &scanpkg.Scan{ID: newID(), SiteID: f.site.ID, URL: "https://shop.example", URLs: []string{"https://shop.example"}, Status: scanpkg.ScanPending, CreatedAt: now}
	for _, err := range []error{
		s.CreateOrganization(ctx, f.org), s.CreateSite(ctx, f.site), s.CreateCategory(ctx, f.cat), s.CreateScan(ctx, f.scan),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func category(siteID, slug string) *corebanner.Category {
	now := time.Now().UTC().Truncate(time.Microsecond)
	return &corebanner.Category{ID: newID(), SiteID: siteID, Slug: slug, Name: slug, NameTranslations: map[string]string{},
		DescriptionTranslations: map[string]string{}, CreatedAt: now, UpdatedAt: now}
}

func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	if got := core.ErrorCode(err); got != core.CodeInvalid {
		t.Errorf("%s: %v, want %s", what, err, core.CodeInvalid)
	}
}

// testNULText writes text holding a NUL character, which neither Postgres text nor jsonb can
// hold and bun cannot quote: every write is validation_error and writes nothing.
func testNULText(t *testing.T, s *bunstore.Store) {
	ctx := context.Background()
	f := seedInvalid(t, s)
	now := time.Now().UTC()
	site := *f.site
	site.ID, site.ProjectKey, site.Name = newID(), "pk_"+newID(), "Sh\x00p"
	wantInvalid(t, "CreateSite with NUL in the name", s.CreateSite(ctx, &site))
	upd := *f.site
	upd.URL = "https://shop.example/\x00"
	wantInvalid(t, "UpdateSite with NUL in the URL", s.UpdateSite(ctx, &upd))
	c := category(f.site.ID, "stats\x00")
	wantInvalid(t, "CreateCategory with NUL in the slug", s.CreateCategory(ctx, c))
	c = category(f.site.ID, "marketing")
	c.NameTranslations = map[string]string{"de": "Wer\x00bung"}
	wantInvalid(t, "CreateCategory with NUL in a translation (jsonb)", s.CreateCategory(ctx, c))
	svc := &corebanner.Service{ID: newID(), SiteID: f.site.ID, CategoryID: f.cat.ID, Slug: "ga", Label: "GA",
		LabelTranslations: map[string]string{}, DescriptionTranslations: map[string]string{},
		BlockingPatterns: []string{"google-analytics.com\x00"}, CreatedAt: now, UpdatedAt: now}
	wantInvalid(t, "CreateService with NUL in a blocking pattern (jsonb)", s.CreateService(ctx, svc))
	scan := *f.scan
	scan.DetectedServices = []core.DetectedService{{Slug: "ga", Name: "GA\x00"}}
	wantInvalid(t, "UpdateScan with NUL in a detected service (jsonb)", s.UpdateScan(ctx, &scan))
	r := &consent.ConsentRecord{ID: newID(), SiteID: f.site.ID, VisitorID: "v\x00", CategoriesConsented: map[string]bool{}, Action: "accept_all", CreatedAt: now}
	wantInvalid(t, "CreateConsentRecord with NUL in the visitor ID", s.CreateConsentRecord(ctx, r))
	sites, err := s.Sites(ctx, f.org.ID)
	if err != nil || len(sites) != 1 || sites[0].URL != f.site.URL {
		t.Errorf("sites after the refused writes: %v, %v", sites, err)
	}
	cats, err := s.Categories(ctx, f.site.ID)
	if err != nil || len(cats) != 1 {
		t.Errorf("categories after the refused writes: %d, %v", len(cats), err)
	}
}

func TestSQLiteNULText(t *testing.T) {
	t.Parallel()
	testNULText(t, openSQLite(t))
}

func TestPostgresNULText(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	testNULText(t, openPostgres(t))
}

// TestPostgresOutOfRange passes values that Go and SQLite hold but Postgres columns do not:
// integers beyond int32 in INTEGER columns, dates outside timestamptz (year 0, before the
// common era, beyond year 294276). The driver's data exceptions are validation_error, not
// internal errors.
func TestPostgresOutOfRange(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	ctx := context.Background()
	s := openPostgres(t)
	f := seedInvalid(t, s)

	c := category(f.site.ID, "big")
	c.SortOrder = 1 << 40
	wantInvalid(t, "CreateCategory with sort_order 2^40", s.CreateCategory(ctx, c))
	upd := *f.cat
	upd.SortOrder = 1 << 31
	wantInvalid(t, "UpdateCategory with sort_order 2^31", s.UpdateCategory(ctx, &upd))
	got, err := s.Category(ctx, f.site.ID, f.cat.ID)
	if err != nil || got.SortOrder != f.cat.SortOrder {
		t.Errorf("category after a refused update: %+v, %v", got, err)
	}
	scan := *f.scan
	scan.PagesScanned = 1 << 35
	wantInvalid(t, "UpdateScan with pages_scanned 2^35", s.UpdateScan(ctx, &scan))
	r := &consent.ConsentRecord{ID: newID(), SiteID: f.site.ID, VisitorID: "v", CategoriesConsented: map[string]bool{},
		ConsentVersion: 1 << 33, Action: "accept_all", CreatedAt: time.Now().UTC()}
	wantInvalid(t, "CreateConsentRecord with consent_version 2^33", s.CreateConsentRecord(ctx, r))

	for name, at := range map[string]time.Time{
		"year 0":      time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		"year -1":     time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
		"year 300000": time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		for _, q := range map[string]consent.ConsentQuery{
			"from": {SiteID: f.site.ID, From: &at, Page: 1, Limit: 10},
			"to":   {SiteID: f.site.ID, To: &at, Page: 1, Limit: 10},
		} {
			_, _, err := s.ConsentRecords(ctx, q)
			wantInvalid(t, "ConsentRecords from or to "+name, err)
			err = s.EachConsentRecord(ctx, q, func(*consent.ConsentRecord) error { return nil })
			wantInvalid(t, "EachConsentRecord from or to "+name, err)
		}
		r := &consent.ConsentRecord{ID: newID(), SiteID: f.site.ID, VisitorID: "v", CategoriesConsented: map[string]bool{},
			Action: "accept_all", CreatedAt: at}
		wantInvalid(t, "CreateConsentRecord created "+name, s.CreateConsentRecord(ctx, r))
		sc := *f.scan
		sc.StartedAt = &at
		wantInvalid(t, "UpdateScan started "+name, s.UpdateScan(ctx, &sc))
	}
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	if err != nil || total != 0 {
		t.Errorf("consent records after refused writes: %d, %v", total, err)
	}
}
