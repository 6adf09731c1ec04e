package crawler

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/library"
	"github.com/consentd/consentd/library/librarytest"
)

// verifySite runs a verification of a recorded site under testdata/verify, every host routed
// to the replay servers as in deepScanSite.
func verifySite(t testing.TB, name string, ix *library.Index, b *browser.Pool, vo VerifyOptions) (*Result, error) {
	dir := filepath.Join("..", "testdata", "verify", name)
	if strings.Contains(name, "/") {
		dir = filepath.Join("..", "testdata", filepath.FromSlash(name))
	}
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, siteHandler(dir, cfg))
	e := New(ix)
	tb.install(e, cfg.DNS)
	opts := Options{StartURLs: cfg.Start, MaxPages: cfg.MaxPages, StorefrontPassword: cfg.Password, IgnoreRobots: cfg.IgnoreRobots,
		Concurrency: 4, Timeout: 90 * time.Second}
	return e.Verify(context.Background(), opts, b, vo)
}

// stateOf returns the named state of a verification, failing the test without it.
func stateOf(t *testing.T, v *core.Verification, name string) core.VerifiedState {
	t.Helper()
	for _, s := range v.States {
		if s.State == name {
			return s
		}
	}
	t.Fatalf("no state %s among %d", name, len(v.States))
	return core.VerifiedState{}
}

// services are the slugs of a state's requests, cookies and storage ("cookie _ga google-analytics").
func items(s core.VerifiedState) []string {
	var out []string
	for _, r := range s.Requests {
		out = append(out, "request "+r.Service+" "+r.Category)
	}
	for _, c := range s.Cookies {
		out = append(out, "cookie "+c.Name+" "+c.Service+" "+c.Category)
	}
	for _, c := range s.Storage {
		out = append(out, "storage "+c.Name+" "+c.Service)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func has(list []string, item string) bool { return slices.Contains(list, item) }

func dump(t *testing.T, v any) {
	out, _ := json.MarshalIndent(v, "", "  ")
	t.Logf("%s", out)
}

// TestVerifyClean: on a correctly set up site, the runtime holds every tracker until accept:
// nothing non-essential before a decision or after reject, both trackers after accept, and
// after withdrawal nothing comes back.
func TestVerifyClean(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 1)
	res, err := verifySite(t, "clean", librarytest.Index(t), b, VerifyOptions{Categories: []string{"statistics"}})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verification
	if res.Mode != core.ScanVerify || v == nil || v.Banner != core.BannerConsentd {
		t.Fatalf("mode %s, verification %+v", res.Mode, v)
	}
	defer func() {
		if t.Failed() {
			dump(t, v)
		}
	}()
	if v.ProjectKey == nil || *v.ProjectKey != "pk_verifyclean7q2m4x8r6t0w3y5z" {
		t.Errorf("runtime's project key %v", v.ProjectKey)
	}
	// Fetched from the API base of the runtime's script (the recording has it nowhere else).
	if !strings.Contains(string(res.PublicConfig), `"projectKey": "pk_verifyclean7q2m4x8r6t0w3y5z"`) || res.PublicConfigError != "" {
		t.Errorf("public configuration %.80q, error %q", res.PublicConfig, res.PublicConfigError)
	}
	if !v.ConsentModeDefault || !v.RejectOnFirstLayer || !v.ReopenButton {
		t.Errorf("consent mode default %v, reject on first layer %v, reopen button %v: want all true", v.ConsentModeDefault, v.RejectOnFirstLayer, v.ReopenButton)
	}
	var names []string
	for _, s := range v.States {
		names = append(names, s.State)
		if len(s.Pages) != 10 {
			t.Errorf("%s: %d pages, want 10", s.State, len(s.Pages))
		}
	}
	if want := []string{core.StateNoDecision, core.StateRejectAll, core.StateAcceptAll, core.StateWithdrawn, "category:statistics"}; !slices.Equal(names, want) {
		t.Fatalf("states %v, want %v", names, want)
	}
	for _, name := range []string{core.StateNoDecision, core.StateRejectAll, core.StateWithdrawn} {
		if got := items(stateOf(t, v, name)); len(got) != 0 {
			t.Errorf("%s: %v, want nothing", name, got)
		}
	}
	acc := items(stateOf(t, v, core.StateAcceptAll))
	for _, want := range []string{"request google-analytics statistics", "request meta-pixel marketing",
		"cookie _ga google-analytics statistics", "cookie _fbp meta-pixel marketing", "cookie fr meta-pixel marketing"} {
		if !has(acc, want) {
			t.Errorf("accept_all lacks %q: %v", want, acc)
		}
	}
	stats := items(stateOf(t, v, "category:statistics"))
	if !has(stats, "cookie _ga google-analytics statistics") || strings.Contains(strings.Join(stats, ","), "meta-pixel") {
		t.Errorf("category:statistics %v: want analytics and no pixel", stats)
	}
	// The no_decision state is a deep scan too: the marked analytics tag is a detected service
	// (the pixel's marked first-party snippet is never fetched before a decision), and nothing
	// acted before consent.
	var slugs []string
	for _, s := range res.Services {
		slugs = append(slugs, s.Slug)
	}
	if !slices.Contains(slugs, "google-analytics") || len(res.PreConsent) != 0 {
		t.Errorf("services %v, pre-consent %+v", slugs, res.PreConsent)
	}
}

// TestVerifyFaulty: the unmarked tag above the loader loads before any decision; the unmarked
// pixel image's cookie comes back after withdrawal; the opt_out banner lets the marked
// trackers run before a decision.
func TestVerifyFaulty(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 1)
	res, err := verifySite(t, "faulty", librarytest.Index(t), b, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verification
	defer func() {
		if t.Failed() {
			dump(t, v)
		}
	}()
	if v.Banner != core.BannerConsentd || len(v.States) != 4 {
		t.Fatalf("banner %s, %d states", v.Banner, len(v.States))
	}
	nd := items(stateOf(t, v, core.StateNoDecision))
	for _, want := range []string{"request hotjar statistics", "request google-analytics statistics", "cookie _ga google-analytics statistics"} {
		if !has(nd, want) {
			t.Errorf("no_decision lacks %q: %v", want, nd)
		}
	}
	rej := items(stateOf(t, v, core.StateRejectAll))
	if !has(rej, "request hotjar statistics") || has(rej, "cookie _ga google-analytics statistics") {
		t.Errorf("reject_all %v: want the unmarked heatmap loaded, and no analytics cookie", rej)
	}
	wd := stateOf(t, v, core.StateWithdrawn)
	var back []string
	for _, c := range wd.Cookies {
		back = append(back, c.Name+"@"+c.Domain+" "+c.Service)
	}
	if !slices.Contains(back, "fr@facebook.com meta-pixel") || slices.Contains(back, "_ga@www.faulty-shop.example google-analytics") {
		t.Errorf("withdrawn cookies %v: want fr back (the unmarked pixel image), _ga not", back)
	}
}

// TestVerifyOtherVendor: another vendor's banner is not driven: only no_decision, where its
// analytics already loaded and stored.
func TestVerifyOtherVendor(t *testing.T) {
	b := testBrowsers(t)
	res, err := verifySite(t, "other-vendor", librarytest.Index(t), b, VerifyOptions{Categories: []string{"statistics"}})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verification
	if v.Banner != core.BannerNone || len(v.States) != 1 || v.States[0].State != core.StateNoDecision || v.ProjectKey != nil || v.Unreached == nil {
		dump(t, v)
		t.Fatalf("banner %s, states %d", v.Banner, len(v.States))
	}
	nd := items(v.States[0])
	if !has(nd, "request google-analytics statistics") || !has(nd, "cookie _ga google-analytics statistics") {
		t.Errorf("no_decision %v", nd)
	}
	if v.ConsentModeDefault {
		t.Error("consent mode default reported on a site without one")
	}
}

// TestVerifyHeldUnmarked: with site-wide blocking, the runtime holds the page's unmarked tags
// once it has its configuration (cached on the first page, so on the later ones from the
// start) and reports them: the parser-inserted analytics tag, which the browser's preload
// scanner requested anyway (on the first page, without a configuration yet, it even ran). The pixel its unmarked loader inserts at run time is held before
// any fetch (and, inserted by script, is not one of the page's own tags). After accept both run.
func TestVerifyHeldUnmarked(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 1)
	res, err := verifySite(t, "held-unmarked", librarytest.Index(t), b, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd := stateOf(t, res.Verification, core.StateNoDecision)
	defer func() {
		if t.Failed() {
			dump(t, nd)
		}
	}()
	var held []string
	for _, h := range nd.HeldUnmarked {
		if h.Page == "https://www.held-shop.example/more.html" {
			held = append(held, h.URL+" "+h.Service+" "+h.Category+" "+map[bool]string{true: "requested", false: "not requested"}[h.Requested])
		}
	}
	if want := []string{"https://www.googletagmanager.com/gtag/js?id=G-HELD0001 google-analytics statistics requested"}; !slices.Equal(held, want) {
		t.Errorf("held unmarked on more.html %v, want %v", held, want)
	}
	if got := items(nd); has(got, "request meta-pixel marketing") {
		t.Errorf("no_decision %v: the pixel was fetched", got)
	}
	// On the first page the runtime has no configuration yet when the parser meets the tag:
	// only the loader (which inlines it) can hold unmarked tags there, so analytics ran.
	for _, c := range nd.Cookies {
		if c.Name == "_ga" && c.Page != "https://www.held-shop.example/" {
			t.Errorf("_ga first held after %s, want the first page", c.Page)
		}
	}
	acc := stateOf(t, res.Verification, core.StateAcceptAll)
	if got := items(acc); !has(got, "cookie _ga google-analytics statistics") || !has(got, "cookie _fbp meta-pixel marketing") {
		t.Errorf("accept_all %v", got)
	}
}

// TestVerifyStorefront: a storefront the static pass unlocked with its password stays
// unlocked in every browser context (the shop's own tags load, not the password page's), and
// the storefront cookie the scan gave the browser is not reported.
func TestVerifyStorefront(t *testing.T) {
	b := testBrowsers(t)
	res, err := verifySite(t, "sites/shop-password", librarytest.Index(t), b, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd := res.Verification.States[0]
	got := strings.Join(items(nd), ",")
	if !strings.Contains(got, "request klaviyo ") || strings.Contains(got, "request shopify") {
		dump(t, nd)
		t.Fatalf("no_decision %s: want the unlocked shop's tags, not the password page's", got)
	}
	for _, c := range nd.Cookies {
		if c.Name == "storefront_digest" {
			t.Errorf("the scan's storefront cookie reported: %+v", c)
		}
	}
}

// TestVerifyTabPerPage: a state's tabs load its pages one after another (the tabs are made
// once), yet each page is observed as in a tab of its own: the session storage the home page
// set is not found after the pages loaded later in the same tab, as a visitor's new tab would
// not have it.
func TestVerifyTabPerPage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "verify", "tab-per-page")
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, siteHandler(dir, cfg))
	e := New(librarytest.Index(t))
	tb.install(e, cfg.DNS)
	// One tab: every page after the first is loaded in the tab the home page was.
	opts := Options{StartURLs: cfg.Start, Concurrency: 4, Timeout: 90 * time.Second, StatePagesAtOnce: 1}
	res, err := e.Verify(context.Background(), opts, ownBrowsers(t, 1), VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	home := "https://www.tab-shop.example/"
	if nd := stateOf(t, res.Verification, core.StateNoDecision); len(nd.Pages) != 4 {
		t.Fatalf("pages %v, want the home page and three more", nd.Pages)
	}
	found := false
	for _, k := range res.Storage {
		if k.Name == "tab-shop-visited" {
			found = true
			if !slices.Equal(k.Pages, []string{home}) {
				t.Errorf("session key held after %v, want the home page alone", k.Pages)
			}
		}
	}
	if !found {
		t.Errorf("the home page's session key is not reported: %+v", res.Storage)
	}
}
