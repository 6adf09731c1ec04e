package core_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// ctx is the tests' caller: the system, as the operator's command line would be (the tests of
// members' and keys' rights set their own).
// Core's tests hash passwords with cheap argon2id parameters; the hash records them.
func init() { identity.ArgonTime, identity.ArgonMemory = 1, 1024 }

var ctx = core.WithActor(context.Background(), core.System("core tests"))

// fakeQueue and fakeCrawler are core's tests' doubles of the scan queue and crawler ports;
// the queue remembers the jobs it was given.
type fakeQueue struct{ jobs []scan.ScanJob }

func (q *fakeQueue) EnqueueScan(_ context.Context, _ scan.Store, j scan.ScanJob) error {
	q.jobs = append(q.jobs, j)
	return nil
}

type fakeCrawler struct {
	res   *core.CrawlResult
	err   error
	calls int
}

func (c *fakeCrawler) Crawl(context.Context, scan.CrawlRequest) (*core.CrawlResult, error) {
	c.calls++
	return c.res, c.err
}

func svc(slug, cat string, builtin bool, scripts ...string) *library.Service {
	return &library.Service{
		Slug: slug, Label: slug, Description: "d", Category: cat, Vendor: "v",
		ServiceURL: "https://" + slug + ".example", PrivacyPolicyURL: "https://" + slug + ".example/privacy",
		Cookies:         []library.Cookie{{Name: "_" + slug, Match: "exact", Duration: "1 year", Description: "id", Party: "first", Storage: "cookie"}},
		Scripts:         scripts,
		BuiltinBlocking: builtin,
	}
}

// testCore is the use cases on memstore, with the store and ID source at hand for tests
// that play another node changing the store behind the use cases' back.
type testCore struct {
	*usecases.UseCases
	store usecases.Store
	newID func() string
}

func newCore(t *testing.T) (*testCore, *fakeQueue, *fakeCrawler) {
	t.Helper()
	return newCoreAt(t, nil)
}

// newCoreAt is newCore on the clock now; nil ticks a second per ID made.
func newCoreAt(t *testing.T, now func() time.Time) (*testCore, *fakeQueue, *fakeCrawler) {
	t.Helper()
	cat, err := library.FromServices([]*library.Service{
		svc("tagman", "statistics", true, "tags.example/t.js"),
		svc("stats", "statistics", false, "stats.example/s.js"),
		svc("ads", "marketing", false, "ads.example/a.js"),
		svc("pay", "essential", false, "pay.example/p.js"),
		svc("bare", "marketing", false),
	})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	q, c := &fakeQueue{}, &fakeCrawler{}
	store := memstore.New()
	newID := func() string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n.Add(1)) }
	if now == nil {
		now = func() time.Time {
			return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC).Add(time.Duration(n.Load()) * time.Second)
		}
	}
	uc, err := usecases.New(usecases.Deps{Store: store, Queue: q, Crawler: c, Catalog: cat, Now: now, NewID: newID})
	if err != nil {
		t.Fatal(err)
	}
	return &testCore{UseCases: uc, store: store, newID: newID}, q, c
}

func ptr[T any](v T) *T { return &v }

func mustSite(t *testing.T, m *testCore) (string, *core.Site) {
	t.Helper()
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Sites.CreateSite(ctx, org.ID, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	return org.ID, s
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if core.ErrorCode(err) != code {
		t.Fatalf("err %v: want code %q", err, code)
	}
}

func TestSlugify(t *testing.T) {
	// Names without anything to transliterate get a short slug of their own.
	cookie, cake := banner.Slugify("🍪"), banner.Slugify("🎂")
	if !strings.HasPrefix(cookie, "category-") || len(cookie) != len("category-")+8 || cookie == cake {
		t.Errorf("Slugify(🍪) = %q, Slugify(🎂) = %q: want distinct category-xxxxxxxx slugs", cookie, cake)
	}
	for in, want := range map[string]string{
		"Social Media": "social-media", "Préférences  sociales!": "preferences-sociales", "  A/B testing ": "a-b-testing",
		"日本語": "ri-ben-yu", "x--y": "x-y", "Ünïcödé 2": "unicode-2", "Straße": "strasse",
		"中文类别": "zhong-wen-lei-bie", "Категория": "kategoriia", "Κατηγορία": "kategoria", "   ": "",
	} {
		if got := banner.Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJurisdiction(t *testing.T) {
	for c, want := range map[string]string{"DE": "gdpr", "FR": "gdpr", "NO": "gdpr", "GB": "gdpr", "CH": "gdpr", "US": "ccpa", "JP": "none", "": "none", "BR": "none"} {
		if got := core.JurisdictionOf(c); got != want {
			t.Errorf("JurisdictionOf(%q) = %q, want %q", c, got, want)
		}
	}
}

func TestAuthenticateAndBootstrap(t *testing.T) {
	m, _, _ := newCore(t)
	key, err := m.Orgs.Bootstrap(ctx, "")
	if err != nil || len(key) < 40 {
		t.Fatalf("bootstrap: %q %v", key, err)
	}
	org, err := m.Orgs.Authenticate(ctx, key)
	if err != nil || org == "" {
		t.Fatal(err)
	}
	if again, err := m.Orgs.Bootstrap(ctx, ""); err != nil || again != "" {
		t.Fatalf("second bootstrap made %q", again)
	}
	_, err = m.Orgs.Authenticate(ctx, key+"x")
	wantCode(t, err, core.CodeUnauthorized)
	_, err = m.Orgs.Authenticate(ctx, "")
	wantCode(t, err, core.CodeUnauthorized)
	_, _, err = m.Orgs.CreateAPIKey(ctx, org, "short", "tooshort")
	wantCode(t, err, core.CodeInvalid)
	_, _, err = m.Orgs.CreateAPIKey(ctx, "00000000-0000-7000-8000-999999999999", "x", "")
	wantCode(t, err, core.CodeNotFound)
}

func TestCreateSiteMakesBannerAndDefaults(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	b, err := m.Banners.Banner(ctx, org, s.ID)
	// Enforced by default: site-wide blocking on, opt-in, at version 1.
	if err != nil || b.ConsentVersion != 1 || !b.SiteWideBlocking || b.DefaultBehavior != "opt_in" || !b.BlockingRules.SiteWide {
		t.Fatalf("banner %+v %v", b, err)
	}
	cats, err := m.Categories.Categories(ctx, org, s.ID)
	if err != nil || len(cats) != 3 || cats[0].Slug != "essential" || !cats[0].IsRequired || cats[1].IsRequired || !cats[2].IsDefault {
		t.Fatalf("categories %v", err)
	}
	_, err = m.Sites.CreateSite(ctx, org, site.SiteInput{Name: ptr(""), URL: ptr("https://x.example")})
	wantCode(t, err, core.CodeInvalid)
	_, err = m.Sites.CreateSite(ctx, org, site.SiteInput{Name: ptr("x"), URL: ptr("mailto:a@b")})
	wantCode(t, err, core.CodeInvalid)
	_, err = m.Sites.Site(ctx, "00000000-0000-7000-8000-999999999999", s.ID)
	wantCode(t, err, core.CodeNotFound)
}

func TestCategoryRules(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	c1, err := m.Categories.CreateCategory(ctx, org, s.ID, banner.CategoryInput{Name: ptr("Statistics")})
	if err != nil || c1.Slug != "statistics-2" || c1.IsDefault || c1.IsRequired || c1.SortOrder != 3 {
		t.Fatalf("%+v %v", c1, err)
	}
	cats, _ := m.Categories.Categories(ctx, org, s.ID)
	wantCode(t, m.Categories.DeleteCategory(ctx, org, s.ID, cats[0].ID), core.CodeInvalid)
	if _, err := m.Services.CreateService(ctx, org, s.ID, banner.ServiceInput{Slug: "x", Label: "X", CategorySlug: "statistics-2"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, m.Categories.DeleteCategory(ctx, org, s.ID, c1.ID), core.CodeInvalid)
	svcs, _ := m.Services.Services(ctx, org, s.ID)
	if err := m.Services.DeleteService(ctx, org, s.ID, svcs[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Categories.DeleteCategory(ctx, org, s.ID, c1.ID); err != nil {
		t.Fatal(err)
	}
	u, err := m.Categories.UpdateCategory(ctx, org, s.ID, cats[1].ID, banner.CategoryInput{Name: ptr("Analytics"), SortOrder: ptr(5)})
	if err != nil || u.Slug != "statistics" || u.Name != "Analytics" || u.SortOrder != 5 {
		t.Fatalf("update keeps slug: %+v %v", u, err)
	}
}

func TestImportBlockingRules(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	for _, c := range []struct {
		slug, cat string
		rules     int
	}{
		{"stats", "", 1},        // patterns, non-required category
		{"tagman", "", 0},       // covered by a built-in rule
		{"pay", "", 0},          // essential: never blocked
		{"bare", "", 0},         // no known patterns
		{"ads", "essential", 0}, // moved into a required category
	} {
		res, err := m.Services.ImportService(ctx, org, s.ID, c.slug, c.cat)
		if err != nil {
			t.Fatalf("%s: %v", c.slug, err)
		}
		if res.BlockingRulesAdded != c.rules || len(res.Services[0].Cookies) != 1 {
			t.Errorf("%s: %d rules, %d cookies", c.slug, res.BlockingRulesAdded, len(res.Services[0].Cookies))
		}
	}
	_, err := m.Services.ImportService(ctx, org, s.ID, "stats", "")
	wantCode(t, err, core.CodeConflict)
	_, err = m.Services.ImportService(ctx, org, s.ID, "nope", "")
	wantCode(t, err, core.CodeNotFound)

	b, err := m.Banners.Banner(ctx, org, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range b.BlockingRules.Rules {
		got[r.ServiceSlug] = r.CategorySlug
	}
	// stats by its import, tagman by the built-in rule; pay and ads sit in essential
	if len(got) != 2 || got["stats"] != "statistics" || got["tagman"] != "statistics" {
		t.Fatalf("rules %v", got)
	}
}

func TestBuiltinRuleWithoutImport(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	b, _ := m.Banners.Banner(ctx, org, s.ID)
	if len(b.BlockingRules.Rules) != 1 || b.BlockingRules.Rules[0].ServiceSlug != "tagman" {
		t.Fatalf("built-in rules of a fresh site: %+v", b.BlockingRules)
	}
}

// TestWithdrawalCookieRules: withdrawal deletes the cookies of the site's services and of the
// library services that built-in rules hold back, with no service configured.
func TestWithdrawalCookieRules(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	rules := func() string {
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(cfg.CookieRules)
	}
	// tagman has a built-in rule; stats and ads do not, so nothing names their cookies yet.
	if got := rules(); got != "[{statistics _tagman exact}]" {
		t.Fatalf("cookie rules of a new site: %s", got)
	}
	if _, err := m.Services.ImportService(ctx, org, s.ID, "ads", ""); err != nil {
		t.Fatal(err)
	}
	// An imported built-in service follows its site category.
	if _, err := m.Services.ImportService(ctx, org, s.ID, "tagman", "marketing"); err != nil {
		t.Fatal(err)
	}
	if got := rules(); got != "[{marketing _ads exact} {marketing _tagman exact}]" {
		t.Fatalf("cookie rules after imports: %s", got)
	}
}

func TestScriptBlockingVersion(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	for _, c := range []struct {
		on      bool
		version int
	}{{true, 1}, {false, 2}, {false, 2}, {true, 3}} {
		if err := m.Banners.SetScriptBlocking(ctx, org, s.ID, c.on); err != nil {
			t.Fatal(err)
		}
		b, _ := m.Banners.Banner(ctx, org, s.ID)
		if b.ConsentVersion != c.version || b.SiteWideBlocking != c.on {
			t.Fatalf("after %v: version %d", c.on, b.ConsentVersion)
		}
	}
}

func TestRecordConsent(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	cases := []struct {
		in     consent.ConsentInput
		action string
		dns    bool
		jur    string
	}{
		{consent.ConsentInput{Categories: map[string]bool{"statistics": true, "marketing": true}, ConsentVersion: 1, Country: "DE"}, "accept_all", false, "gdpr"},
		{consent.ConsentInput{Categories: map[string]bool{"essential": false}, ConsentVersion: 1, Country: "FR"}, "reject_all", false, "gdpr"},
		{consent.ConsentInput{Categories: map[string]bool{"statistics": true}, ConsentVersion: 1}, "custom", false, "none"},
		{consent.ConsentInput{Categories: map[string]bool{"statistics": true}, ConsentVersion: 1, GPC: true, Country: "US", Action: ptr("gpc")}, "gpc", true, "ccpa"},
		{consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 1, GPC: true, Country: "DE"}, "reject_all", false, "gdpr"},
	}
	for i, c := range cases {
		r, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != c.action || r.DoNotSell != c.dns || r.Jurisdiction != c.jur || !r.CategoriesConsented["essential"] || len(r.CategoriesConsented) != 3 {
			t.Errorf("case %d: %+v", i, r)
		}
	}
	_, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{"nope": true}, ConsentVersion: 1})
	wantCode(t, err, core.CodeInvalid)
	_, err = m.PublicBanner.RecordConsent(ctx, "pk_missing", consent.ConsentInput{ConsentVersion: 1})
	wantCode(t, err, core.CodeNotFound)
	recs, total, err := m.ConsentLog.ConsentRecords(ctx, org, consent.ConsentQuery{SiteID: s.ID, Page: 1, Limit: 2})
	if err != nil || total != 5 || len(recs) != 2 || recs[0].Action != "reject_all" {
		t.Fatalf("list: %d %d %v", total, len(recs), err)
	}
	_, _, err = m.ConsentLog.ConsentRecords(ctx, org, consent.ConsentQuery{SiteID: s.ID, Page: 0, Limit: 2})
	wantCode(t, err, core.CodeInvalid)
	_, _, err = m.ConsentLog.ConsentRecords(ctx, org, consent.ConsentQuery{SiteID: s.ID, Page: 1, Limit: 101})
	wantCode(t, err, core.CodeInvalid)
}

// TestRecordConsentCannotContradictItself: the action and the categories agree in every
// stored record, and a decision cannot name a banner version the site has not shown.
func TestRecordConsentCannotContradictItself(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	for i, c := range []struct {
		in   consent.ConsentInput
		want string // "" when stored, else the field the 400 names
	}{
		{consent.ConsentInput{Action: ptr("reject_all"), Categories: map[string]bool{"statistics": true, "marketing": true}, ConsentVersion: 1}, "categories.statistics"},
		{consent.ConsentInput{Action: ptr("reject_all"), Categories: map[string]bool{"marketing": true}, ConsentVersion: 1}, "categories.marketing"},
		{consent.ConsentInput{Action: ptr("reject_all"), Categories: map[string]bool{"essential": true, "statistics": false}, ConsentVersion: 1}, ""},
		{consent.ConsentInput{Action: ptr("accept_all"), Categories: map[string]bool{"statistics": true, "marketing": false}, ConsentVersion: 1}, "categories.marketing"},
		{consent.ConsentInput{Action: ptr("accept_all"), Categories: map[string]bool{"statistics": true}, ConsentVersion: 1}, "categories.marketing"},
		{consent.ConsentInput{Action: ptr("accept_all"), Categories: map[string]bool{"statistics": true, "marketing": true}, ConsentVersion: 1}, ""},
		// GPC locks marketing off in the runtime; "accept all" then sends it false.
		{consent.ConsentInput{Action: ptr("accept_all"), Categories: map[string]bool{"statistics": true, "marketing": false}, ConsentVersion: 1, GPC: true, Country: "US"}, ""},
		{consent.ConsentInput{Action: ptr("accept_all"), Categories: map[string]bool{"statistics": false}, ConsentVersion: 1, GPC: true, Country: "US"}, "categories.statistics"},
		{consent.ConsentInput{Action: ptr("custom"), Categories: map[string]bool{"statistics": true}, ConsentVersion: 1}, ""},
		{consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 2}, "consentVersion"},
		{consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 99}, "consentVersion"},
	} {
		r, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, c.in)
		if c.want != "" {
			wantCode(t, err, core.CodeInvalid)
			if err == nil || !strings.HasPrefix(core.ErrorMessage(err), c.want+":") {
				t.Errorf("case %d: %v, want an error naming %s", i, err, c.want)
			}
			// A message reads as a sentence: never a range of one ("must be 1 to 1").
			if err != nil && regexp.MustCompile(`\b(\d+) to (\d+)\b`).FindStringSubmatch(core.ErrorMessage(err)) != nil {
				if m := regexp.MustCompile(`\b(\d+) to (\d+)\b`).FindStringSubmatch(core.ErrorMessage(err)); m[1] == m[2] {
					t.Errorf("case %d: %q names a range of one value", i, core.ErrorMessage(err))
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, cat := range []string{"statistics", "marketing"} {
			if v := r.CategoriesConsented[cat]; (r.Action == "reject_all" && v) || (r.Action == "accept_all" && !v && !(cat == "marketing" && r.GPCSignal)) {
				t.Errorf("case %d: stored %s=%v with action %s", i, cat, v, r.Action)
			}
		}
	}
	// Once the site shows version 2, a decision on it is recorded.
	if err := m.Banners.SetScriptBlocking(ctx, org, s.ID, !mustBanner(t, m, org, s.ID).SiteWideBlocking); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 2}); err != nil {
		t.Fatalf("version 2 after the change: %v", err)
	}
}

func mustBanner(t *testing.T, m *testCore, org, siteID string) *banner.Banner {
	t.Helper()
	b, err := m.Banners.Banner(ctx, org, siteID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunScan(t *testing.T) {
	m, q, c := newCore(t)
	org, s := mustSite(t, m)
	trigger := func() string {
		sc, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		return sc.ID
	}
	status := func(id string) *scan.Scan {
		sc, err := m.Scans.Scan(ctx, org, s.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}

	// temporary failure before the last attempt: returned for retry, scan stays running
	id := trigger()
	c.err = core.Temporary(errors.New("timeout"))
	if _, err := m.ScanWorker.RunScan(ctx, q.jobs[0], false); !core.IsTemporary(err) {
		t.Fatalf("want temporary error, got %v", err)
	}
	if st := status(id); st.Status != scan.ScanRunning || st.StartedAt == nil {
		t.Fatalf("status %s", st.Status)
	}
	// last attempt: failed; an error that is no CrawlError gets the internal-failure
	// sentence, never its own text
	if st, err := m.ScanWorker.RunScan(ctx, q.jobs[0], true); err != nil || st != scan.ScanFailed {
		t.Fatal(st, err)
	}
	if st := status(id); st.Status != scan.ScanFailed || *st.ErrorMessage != scan.ScanInternalFailure {
		t.Fatalf("status %s %q", st.Status, *st.ErrorMessage)
	}
	// a redelivered job of a finished scan does nothing
	calls := c.calls
	if _, err := m.ScanWorker.RunScan(ctx, q.jobs[0], false); err != nil || c.calls != calls {
		t.Fatal("finished scan was crawled again")
	}
	// permanent failure ends it at once
	id = trigger()
	c.err = &scan.CrawlError{Message: "the storefront password was rejected", Err: errors.New("401 from /password")}
	if _, err := m.ScanWorker.RunScan(ctx, q.jobs[1], false); err != nil {
		t.Fatal(err)
	}
	if st := status(id); st.Status != scan.ScanFailed || *st.ErrorMessage != "the storefront password was rejected" {
		t.Fatalf("status %s %q", st.Status, *st.ErrorMessage)
	}
	// success, then configure is idempotent and trackers list non-essential services
	id = trigger()
	c.err = nil
	c.res = &core.CrawlResult{PagesScanned: 2, DetectedServices: []core.DetectedService{
		{Slug: "stats", Name: "Stats", Category: "statistics", TrackingIDs: []string{"S-1"}},
		{Slug: "pay", Name: "Pay", Category: "essential"},
		{Slug: "gone", Name: "Gone from the library", Category: "marketing"},
	}}
	_, err := m.Scans.ConfigureScan(ctx, org, s.ID, id)
	wantCode(t, err, core.CodeInvalid)
	if st, err := m.ScanWorker.RunScan(ctx, q.jobs[2], false); err != nil || st != scan.ScanCompleted {
		t.Fatal(err)
	}
	res, err := m.Scans.ConfigureScan(ctx, org, s.ID, id)
	if err != nil || len(res.Services) != 3 || res.BlockingRulesAdded != 1 {
		t.Fatalf("configure: %+v %v", res, err)
	}
	res, err = m.Scans.ConfigureScan(ctx, org, s.ID, id)
	if err != nil || len(res.Services) != 0 {
		t.Fatalf("second configure: %+v %v", res, err)
	}
	tr, err := m.Scans.Trackers(ctx, org, s.ID)
	if err != nil || tr.Scan.ID != id || len(tr.Trackers) != 2 || tr.LastCompletedAt == nil {
		t.Fatalf("trackers: %+v %v", tr, err)
	}
}

func TestTriggerScanValidation(t *testing.T) {
	m, q, _ := newCore(t)
	org, s := mustSite(t, m)
	urls := make([]string, 11)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://shop.example/%d", i)
	}
	_, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{URLs: urls})
	wantCode(t, err, core.CodeInvalid)
	_, err = m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{URL: ptr("https://shop.example/x"), URLs: urls[:10]})
	wantCode(t, err, core.CodeInvalid) // url plus ten more is eleven
	sc, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{URL: ptr("https://shop.example/0"), URLs: urls[:10]})
	if err != nil || len(sc.URLs) != 10 || len(q.jobs) != 1 {
		t.Fatalf("duplicate url folded: %v", err)
	}
}

// TestConsentSiteCache: a category added through the use cases counts at once; one added by
// another node (straight into the store) counts once the cache entry is a second old.
func TestConsentSiteCache(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	m, _, _ := newCoreAt(t, func() time.Time { return now })
	org, s := mustSite(t, m)
	post := func(slug string) error {
		_, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{slug: true}, ConsentVersion: 1})
		return err
	}
	if err := post("statistics"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Categories.CreateCategory(ctx, org, s.ID, banner.CategoryInput{Name: ptr("Social")}); err != nil {
		t.Fatal(err)
	}
	if err := post("social"); err != nil {
		t.Fatalf("own change not seen: %v", err)
	}
	if err := m.store.CreateCategory(ctx, &banner.Category{ID: m.newID(), SiteID: s.ID, Slug: "video", Name: "Video", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, post("video"), core.CodeInvalid) // still the cached view
	now = now.Add(time.Second)
	if err := post("video"); err != nil {
		t.Fatalf("another node's change not seen after the TTL: %v", err)
	}
	if err := m.Sites.DeleteSite(ctx, org, s.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, post("statistics"), core.CodeNotFound)
}

// TestPublicConfigCache: the configuration follows changes made through the use cases at once,
// and another node's changes after the TTL; the jurisdiction is the visitor's, not the cache's.
func TestPublicConfigCache(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	m, _, _ := newCoreAt(t, func() time.Time { return now })
	org, s := mustSite(t, m)
	cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: "DE"})
	if err != nil || cfg.Jurisdiction != "gdpr" || cfg.Banner.ConsentVersion != 1 {
		t.Fatalf("%+v %v", cfg, err)
	}
	if cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: "US"}); cfg.Jurisdiction != "ccpa" {
		t.Fatal("jurisdiction taken from the cache")
	}
	for _, change := range []func() error{
		func() error { return m.Banners.SetScriptBlocking(ctx, org, s.ID, false) },
		func() error { _, err := m.Services.ImportService(ctx, org, s.ID, "stats", ""); return err },
		func() error {
			_, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{Template: ptr("modal")})
			return err
		},
	} {
		before, _ := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{})
		if err := change(); err != nil {
			t.Fatal(err)
		}
		after, _ := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{})
		if after == before || (after.Banner == before.Banner && len(after.BlockingRules.Rules) == len(before.BlockingRules.Rules)) {
			t.Fatal("a change through the use cases is not visible at once")
		}
	}
	cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{})
	if cfg.Banner.Template != "modal" || cfg.BlockingRules.SiteWide || cfg.Banner.ConsentVersion != 2 {
		t.Fatalf("config: %+v", cfg.Banner)
	}
	// another node changes the banner straight in the store
	b, _ := m.store.Banner(ctx, s.ID)
	b.Template = "wide_bar"
	if err := m.store.UpdateBanner(ctx, b); err != nil {
		t.Fatal(err)
	}
	if cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}); cfg.Banner.Template != "modal" {
		t.Fatal("cache not used within the TTL")
	}
	now = now.Add(time.Second)
	if cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}); cfg.Banner.Template != "wide_bar" {
		t.Fatal("another node's change not seen after the TTL")
	}
}

// TestDeepScanResults: the mode asked for is kept on the scan and the job, the mode that ran
// is stored with what the browser saw, and configure completes library services with the
// cookies observed: a duration where the library states none, and cookies it does not list.
func TestDeepScanResults(t *testing.T) {
	m, q, c := newCore(t)
	org, s := mustSite(t, m)
	_, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{Mode: ptr("browser")})
	wantCode(t, err, core.CodeInvalid)
	sc, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{})
	if err != nil || sc.Mode != core.ScanAuto || q.jobs[0].Mode != core.ScanAuto {
		t.Fatalf("default mode: scan %q job %q, %v", sc.Mode, q.jobs[0].Mode, err)
	}
	sc, err = m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{Mode: ptr(core.ScanDeep)})
	if err != nil || sc.Mode != core.ScanDeep || q.jobs[1].Mode != core.ScanDeep || sc.ModeUsed != nil {
		t.Fatalf("deep mode: %+v %v", sc, err)
	}
	c.res = &core.CrawlResult{ModeUsed: core.ScanDeep, PagesScanned: 1, DetectedServices: []core.DetectedService{
		{Slug: "stats", Name: "Stats", Category: "statistics", Cookies: []core.ObservedCookie{
			{Name: "_stats", Duration: "2 years", MaxAgeSeconds: 63072000},
			{Name: "_stats_session", Duration: "session", Session: true},
		}},
	}, UnrecognizedCookies: []core.UnrecognizedCookie{{Kind: core.StorageCookie, Name: "cart", Duration: "1 day"}},
		PreConsent: []core.PreConsentFinding{{Slug: "stats", Name: "Stats", Category: "statistics", Cookies: []string{"_stats"}}}}
	if st, err := m.ScanWorker.RunScan(ctx, q.jobs[1], false); err != nil || st != scan.ScanCompleted {
		t.Fatal(st, err)
	}
	got, err := m.Scans.Scan(ctx, org, s.ID, sc.ID)
	if err != nil || got.ModeUsed == nil || *got.ModeUsed != core.ScanDeep || len(got.PreConsent) != 1 || len(got.UnrecognizedCookies) != 1 {
		t.Fatalf("stored deep scan: %+v %v", got, err)
	}
	res, err := m.Scans.ConfigureScan(ctx, org, s.ID, sc.ID)
	if err != nil || len(res.Services) != 1 {
		t.Fatalf("configure: %+v %v", res, err)
	}
	cookies := map[string]string{}
	for _, ck := range res.Services[0].Cookies {
		cookies[ck.Name] = ck.Duration
	}
	// _stats is in the library with "1 year": the library's words stay; _stats_session is
	// added with its observed duration.
	if want := map[string]string{"_stats": "1 year", "_stats_session": "session"}; fmt.Sprint(cookies) != fmt.Sprint(want) {
		t.Fatalf("configured cookies %v, want %v", cookies, want)
	}
}

// TestDeclarationNamesOwnCookieAndPrefixes: a new site's declaration lists consentd's own
// cookie under essential, with its purpose and lifetime; a prefix cookie reads "_ga_*".
func TestDeclarationNamesOwnCookieAndPrefixes(t *testing.T) {
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	d, err := m.PublicBanner.Declaration(ctx, s.ProjectKey)
	if err != nil {
		t.Fatal(err)
	}
	ess := d.Categories[0]
	if ess.Slug != "essential" || len(ess.Services) != 1 || ess.Services[0].Slug != banner.ConsentCookieName {
		t.Fatalf("essential of a new site: %+v", ess)
	}
	own := ess.Services[0].Cookies
	if len(own) != 1 || own[0].Name != "consentd" || own[0].Duration != "365 days" || own[0].Type != "cookie" ||
		!strings.Contains(own[0].Description, "consent choices") || own[0].Prefix {
		t.Fatalf("own cookie %+v", own)
	}
	for _, c := range d.Categories[1:] {
		for _, sv := range c.Services {
			if sv.Slug == banner.ConsentCookieName {
				t.Fatalf("own cookie declared in %s too", c.Slug)
			}
		}
	}
	// A custom service's "id_*" and a library prefix both read as prefixes.
	if _, err := m.Services.CreateService(ctx, org, s.ID, banner.ServiceInput{Slug: "chat", Label: "Chat", CategorySlug: "statistics",
		Cookies: []banner.CookieInput{{Name: "chat_*", Duration: "1 day"}, {Name: "chat", Duration: "1 day"}}}); err != nil {
		t.Fatal(err)
	}
	d, _ = m.PublicBanner.Declaration(ctx, s.ProjectKey)
	var got []string
	for _, sv := range d.Categories[1].Services {
		for _, k := range sv.Cookies {
			got = append(got, fmt.Sprintf("%s/%v", k.Name, k.Prefix))
		}
	}
	if strings.Join(got, " ") != "chat_*/true chat/false" {
		t.Fatalf("statistics cookies %q", got)
	}
	if sv := d.Categories[1].Services[0]; sv.Note == "" || sv.Note != d.Texts["prefixCookieNote"] || d.Categories[0].Services[0].Note != "" {
		t.Fatalf("prefix notes: %q / %q", sv.Note, d.Categories[0].Services[0].Note)
	}
}
