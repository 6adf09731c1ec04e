package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleJourney walks a site owner through the console in headless Chromium against the
// real server: sign in, create a site, design the banner while watching the preview, save it
// and see the public configuration change, import a library service, edit its cookies, scan a
// recorded site and configure what it found, turn blocking on, see a consent posted through
// the public endpoint in the records, export them, rotate a key, sign out. Every page is
// checked (complete load with nothing from outside, no CSP report, no axe-core violation)
// and photographed.
func TestConsoleJourney(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	blog := blogSite(t)
	ctx := tab(t)
	base := srv.base

	// Sign in: a wrong key is refused in place, the right one opens the sites.
	navigate(t, ctx, base+"/")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	checkPage(t, ctx, base, "01-sign-in")
	fill(t, ctx, map[string]string{"#key": "not-a-key-at-all-xxxx"})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	mustContain(t, ctx, "This API key is not valid")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	mustContain(t, ctx, "No site yet")
	checkPage(t, ctx, base, "02-sites-empty")

	// Create a site; an invalid address is refused in place first.
	fill(t, ctx, map[string]string{"#site-name": "Field Notes", "#site-url": "ftp://blog"})
	eval(t, ctx, "document.querySelector('#site-url').type = 'text'", nil) // let the server judge it
	submit(t, ctx, "document.querySelector('form[action=\"/sites\"] button').click()")
	mustContain(t, ctx, "Not saved: The address must be an absolute http(s) URL.")
	fill(t, ctx, map[string]string{"#site-name": "Field Notes", "#site-url": blog})
	submit(t, ctx, "document.querySelector('form[action=\"/sites\"] button').click()")
	waitFor(t, ctx, "/^\\/sites\\/[0-9a-f-]{36}$/.test(location.pathname)")
	mustContain(t, ctx, "created", "Put the banner on your pages", "has not been scanned yet")
	var siteID, projectKey string
	eval(t, ctx, "location.pathname.split('/')[2]", &siteID)
	eval(t, ctx, "document.querySelector('#snippet').innerText.match(/data-project-key=\"([^\"]+)\"/)[1]", &projectKey)
	eval(t, ctx, "document.querySelector('[data-copy]').click()", nil)
	waitFor(t, ctx, "document.querySelector('#copy-status').textContent.length > 0")
	consoleSnippetIsTheAPIs(t, ctx, base, siteID)
	// The compliance summary of a new site: not verified yet (the configuration alone gives no
	// verdict); the default banner has no privacy-policy link (an error, with its evidence and
	// fix) and keeps a choice a year (a notice).
	var compliance string
	eval(t, ctx, "document.querySelector('#compliance').innerText", &compliance)
	for _, want := range []string{"Not verified yet", "1 error to fix in the configuration, then verify", "1 error · 0 warnings · 1 notice",
		"The banner links to a privacy policy", "Setting", "banner.privacyPolicyUrl",
		"Fix: Set banner.privacyPolicyUrl to the site's privacy policy.", "no verification scan yet"} {
		if !strings.Contains(compliance, want) {
			t.Fatalf("compliance summary lacks %q:\n%s", want, compliance)
		}
	}
	checkPage(t, ctx, base, "03-site-overview")
	site := base + "/sites/" + siteID

	// Banner: change the template and colours, and watch the preview follow before saving.
	navigate(t, ctx, site+"/banner")
	waitFor(t, ctx, "document.querySelector('#preview').getAttribute('data-template') === 'floating'")
	fill(t, ctx, map[string]string{"#color-background": "#fdf6e3", "#color-acceptButton": "#b3261e", "#text-headline": "Cookies on Field Notes"})
	eval(t, ctx, "var r = document.querySelector('input[name=template][value=modal]'); r.checked = true; r.dispatchEvent(new Event('change', {bubbles: true}))", nil)
	waitFor(t, ctx, `(function () { var f = document.querySelector('#preview');
  return f.getAttribute('data-template') === 'modal' && f.getAttribute('data-background') === 'rgb(253, 246, 227)'
    && f.getAttribute('data-accept-background') === 'rgb(179, 38, 30)' && f.getAttribute('data-headline') === 'Cookies on Field Notes'; })()`)
	mustContain(t, ctx, "Preview updated: modal banner")
	if cfg := publicConfig(t, base, projectKey); cfg.Banner.Template != "floating" {
		t.Fatalf("the draft reached the public configuration before saving: %+v", cfg.Banner)
	}
	run(t, ctx, chromedp.EmulateViewport(1280, 1080))
	checkPage(t, ctx, base, "04-banner-editor")
	run(t, ctx, chromedp.EmulateViewport(1280, 900))
	submit(t, ctx, "document.querySelector('#save-banner').click()")
	mustContain(t, ctx, "Banner saved")
	deadline := time.Now().Add(patience)
	for {
		cfg := publicConfig(t, base, projectKey)
		if cfg.Banner.Template == "modal" && cfg.Banner.Colors["background"] == "#fdf6e3" && cfg.Banner.TextOverrides["headline"] == "Cookies on Field Notes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("public configuration after saving: %+v", cfg.Banner)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Library: search as you type (htmx), import Stripe.
	navigate(t, ctx, site+"/library")
	fill(t, ctx, map[string]string{"#q": "stripe"})
	waitFor(t, ctx, "location.search === '?q=stripe' && document.querySelector('button[aria-label=\"Import Stripe\"]')")
	checkPage(t, ctx, base, "05-library")
	submit(t, ctx, "document.querySelector('button[aria-label=\"Import Stripe\"]').click()")
	mustContain(t, ctx, "“Stripe” added", "On this site")

	// Categories and services: Stripe is there; edit its cookies.
	navigate(t, ctx, site+"/services")
	mustContain(t, ctx, "Stripe", "Essential", "Statistics", "Marketing")
	submit(t, ctx, "[].find.call(document.querySelectorAll('.services a'), function (a) { return a.textContent === 'Stripe'; }).click()")
	var cookies int
	eval(t, ctx, "[].filter.call(document.querySelectorAll('input[name$=\".name\"]'), function (i) { return i.value; }).length", &cookies)
	fill(t, ctx, map[string]string{"input[name=\"cookie.0.duration\"]": "2 years", "input[name=\"cookie." + itoa(cookies) + ".name\"]": "__stripe_test", "input[name=\"cookie." + itoa(cookies) + ".duration\"]": "session",
		"input[name=\"lang.0\"]": "de", "input[name=\"tname.0\"]": "Stripe Zahlungen"})
	checkPage(t, ctx, base, "07-service-editor")
	submit(t, ctx, "document.querySelector('main form button[type=submit]').click()")
	mustContain(t, ctx, "saved with "+itoa(cookies+1)+" cookies")
	var dur string
	eval(t, ctx, "document.querySelector('input[name=\"cookie.0.duration\"]').value", &dur)
	if dur != "2 years" {
		t.Fatalf("cookie lifetime after saving: %q", dur)
	}
	var tr string
	eval(t, ctx, "document.querySelector('input[name=\"lang.0\"]').value + '/' + document.querySelector('input[name=\"tname.0\"]').value", &tr)
	if tr != "de/Stripe Zahlungen" {
		t.Fatalf("service translation after saving: %q", tr)
	}

	// Categories: add one, move it up, delete it after confirming.
	navigate(t, ctx, site+"/services")
	fill(t, ctx, map[string]string{"#newcat-name": "Personalisation", "#newcat-desc": "Remembers what you like."})
	submit(t, ctx, "document.querySelector('form[action$=\"/categories\"] button').click()")
	mustContain(t, ctx, "Category “Personalisation” added")
	submit(t, ctx, "document.querySelector('button[aria-label=\"Move Personalisation up\"]').click()")
	var order []string
	eval(t, ctx, "[].map.call(document.querySelectorAll('.category h2'), function (h) { return h.firstChild.textContent.trim(); })", &order)
	if strings.Join(order, ",") != "Essential,Statistics,Personalisation,Marketing" {
		t.Fatalf("categories after moving up: %q", order)
	}
	fill(t, ctx, map[string]string{"#cat-personalisation input[name=\"lang.0\"]": "de", "#cat-personalisation input[name=\"tname.0\"]": "Personalisierung"})
	submit(t, ctx, "document.querySelector('#cat-personalisation form[action*=\"/categories/\"]:not(.move) button[type=submit]').click()")
	mustContain(t, ctx, "Category “Personalisation” saved")
	var de string
	eval(t, ctx, "document.querySelector('#cat-personalisation input[name=\"tname.0\"]').value + '/' + document.querySelector('#cat-personalisation input[name=\"lang.0\"]').value", &de)
	if de != "Personalisierung/de" {
		t.Fatalf("category translation after saving: %q", de)
	}
	checkPage(t, ctx, base, "06-categories-services")
	submit(t, ctx, "document.querySelector('#cat-personalisation a[href$=\"/delete\"]').click()")
	checkPage(t, ctx, base, "08-confirm-delete")
	submit(t, ctx, "document.querySelector('main form button.danger').click()")
	mustContain(t, ctx, "Category deleted")

	// Scans: scan the recorded blog, follow the progress, configure what was found.
	navigate(t, ctx, site+"/scans")
	mustContain(t, ctx, "No scan yet")
	checkPage(t, ctx, base, "09-scans")
	fill(t, ctx, map[string]string{"#urls": blog})
	submit(t, ctx, "document.querySelector('form[action$=\"/scans\"] button').click()")
	waitFor(t, ctx, "/\\/scans\\/[0-9a-f-]{36}$/.test(location.pathname)")
	var first string
	eval(t, ctx, "window.__samePage = true; document.querySelector('.scan-status .badge').textContent", &first)
	waitForWithin(t, ctx, "document.querySelector('.scan-status .badge-completed, .scan-status .badge-failed')", 2*time.Minute)
	if first != "Completed" {
		// The page followed the scan by itself (htmx polling), without a reload.
		var same bool
		eval(t, ctx, "window.__samePage === true", &same)
		if !same {
			t.Fatal("the scan page reloaded instead of updating itself")
		}
		t.Logf("scan followed live from %q", first)
	}
	mustContain(t, ctx, "Status: Completed", "Google Analytics", "G-BLOG123456", "Meta Pixel", "731204958812345",
		"cdn.commentlyhq.net/embed/v2/embed.js", "Pages that could not be read", "drafts/unpublished")
	checkPage(t, ctx, base, "10-scan-results")
	// The overview now knows the site is not compliant: the scan saw YouTube, which nothing
	// holds back, and offers to hold it back in one step.
	navigate(t, ctx, site)
	mustContain(t, ctx, "Not compliant", "seen by the latest scan", "Every tracker a scan found waits for consent", "youtube (Marketing)",
		"that nothing holds back", "Hold them back now")
	checkPage(t, ctx, base, "10a-overview-not-compliant")
	run(t, ctx, chromedp.NavigateBack()) // waits for the load; history.back() in an evaluate raced its reply ("Inspected target navigated")
	waitFor(t, ctx, "document.querySelector('form.configure button')")
	submit(t, ctx, "document.querySelector('form.configure button').click()")
	mustContain(t, ctx, "added (", "Google Analytics", "Meta Pixel")

	// Verification: the recorded blog runs no consentd banner, so only the first visit, with no
	// decision, is checked; the scan page says so and lists the state.
	navigate(t, ctx, site+"/scans")
	submit(t, ctx, "document.querySelector('form[action$=\"/scans\"] button[value=verify]').click()")
	waitFor(t, ctx, "/\\/scans\\/[0-9a-f-]{36}$/.test(location.pathname)")
	waitForWithin(t, ctx, "document.querySelector('.scan-status .badge-completed, .scan-status .badge-failed')", 2*time.Minute)
	mustContain(t, ctx, "Status: Completed", "Verification", "No consentd banner ran on the pages", "no_decision",
		"See what this means on the compliance report")
	checkPage(t, ctx, base, "10b-verification")

	// Overview: the latest scan's trackers; site-wide blocking on.
	navigate(t, ctx, site)
	// A new site is enforced by default; the owner can turn blocking off and on again.
	mustContain(t, ctx, "Trackers found by the latest completed scan", "G-BLOG123456", "Site-wide blocking is on")
	submit(t, ctx, "document.querySelector('form[action$=\"/blocking\"] button').click()")
	mustContain(t, ctx, "Site-wide blocking is off", "unmarked trackers run before consent")
	submit(t, ctx, "document.querySelector('form[action$=\"/blocking\"] button').click()")
	mustContain(t, ctx, "Site-wide blocking is on", "Not compliant", "The banner links to a privacy policy")
	checkPage(t, ctx, base, "11-site-overview-configured")

	// A visitor's decision, posted through the public endpoint, shows in the records.
	postConsent(t, base, projectKey, "visitor-journey-1", map[string]bool{"statistics": true, "marketing": false}, "DE")
	postConsent(t, base, projectKey, "visitor-journey-2", map[string]bool{"statistics": true, "marketing": true}, "US")
	navigate(t, ctx, site+"/consents")
	mustContain(t, ctx, "2 records", "visitor-journey-1", "visitor-journey-2", "gdpr", "ccpa",
		"Statistics", "Opt-in rate per category", "Decisions by visitor region", "Decisions over time")
	var rates string
	eval(t, ctx, "document.querySelector('#optin-d').textContent", &rates)
	if !strings.Contains(rates, "Essential 100 %") || !strings.Contains(rates, "Statistics 100 %") || !strings.Contains(rates, "Marketing 50 %") {
		t.Fatalf("opt-in chart: %q", rates)
	}
	var columns int
	eval(t, ctx, "[].filter.call(document.querySelectorAll('svg[aria-labelledby^=act-h] g'), function (g) { return g.querySelector('rect'); }).length", &columns)
	if columns != 1 {
		t.Fatalf("%d days with decisions in the actions chart, want 1", columns)
	}
	checkPage(t, ctx, base, "12-consent-records")
	submit(t, ctx, "document.querySelector('form input[name=verify]').form.querySelector('button').click()")
	mustContain(t, ctx, "The chain holds.", "2 records in")
	fill(t, ctx, map[string]string{"#visitor": "visitor-journey-1"})
	submit(t, ctx, "document.querySelector('form.filters button').click()")
	mustContain(t, ctx, "1 record", "visitor-journey-1")
	if strings.Contains(text(t, ctx), "visitor-journey-2") {
		t.Fatal("the visitor filter kept another visitor")
	}
	fill(t, ctx, map[string]string{"#erase-visitor": "visitor-journey-1"})
	submit(t, ctx, "document.querySelector('form[action$=\"/consents/erase\"] button').click()")
	mustContain(t, ctx, "Erase the visitor “visitor-journey-1”?")
	submit(t, ctx, "document.querySelector('main form button.danger').click()")
	mustContain(t, ctx, "erased: 1 record no longer name them", "2 records", "visitor-journey-2")
	if strings.Contains(text(t, ctx), "visitor-journey-1</") || strings.Count(text(t, ctx), "visitor-journey-1") > 1 {
		t.Fatalf("the erased visitor is still listed:\n%s", text(t, ctx))
	}
	submit(t, ctx, "document.querySelector('form input[name=verify]').form.querySelector('button').click()")
	mustContain(t, ctx, "The chain holds.")
	var csv string
	eval(t, ctx, "fetch(document.querySelector('a[href*=\"format=csv\"]').href).then(function (r) { return r.text().then(function (b) { return r.status + ' ' + r.headers.get('content-type') + '\\n' + b; }); })", &csv)
	if !strings.HasPrefix(csv, "200 text/csv") || !strings.Contains(csv, "id,siteId,visitorId") || !strings.Contains(csv, "visitor-journey-2") || !strings.Contains(csv, "recordHash") || strings.Count(csv, "\n") != 4 {
		t.Fatalf("CSV export:\n%s", csv)
	}

	// Pages: 25 records each; "Older" follows a cursor, "Newest" returns to the first page.
	for i := range 24 {
		postConsent(t, base, projectKey, fmt.Sprintf("visitor-page-%02d", i), map[string]bool{"statistics": i%2 == 0}, "DE")
	}
	navigate(t, ctx, site+"/consents")
	mustContain(t, ctx, "26 records", "visitor-page-23", "Older →")
	rows := func() (n int) {
		eval(t, ctx, "document.querySelectorAll('table[aria-describedby=records-count] tbody tr:not(.record-detail)').length", &n)
		return n
	}
	if n := rows(); n != 25 {
		t.Fatalf("first page lists %d records, want 25", n)
	}
	submit(t, ctx, "document.querySelector('a[rel=next]').click()")
	mustContain(t, ctx, "26 records; these from", "← Newest")
	if n := rows(); n != 1 || !strings.Contains(text(t, ctx), "erased") { // the oldest: visitor-journey-1's, erased
		t.Fatalf("second page lists %d records:\n%s", n, text(t, ctx))
	}
	if strings.Contains(text(t, ctx), "Older →") {
		t.Fatal("the last page offers an older one")
	}
	checkPage(t, ctx, base, "12c-consent-records-older")
	submit(t, ctx, "document.querySelector('a[rel=first]').click()")
	mustContain(t, ctx, "visitor-page-23")
	if n := rows(); n != 25 {
		t.Fatalf("back on the first page: %d records, want 25", n)
	}

	// API keys: rotate this session's key; the new one is shown once.
	navigate(t, ctx, base+"/keys")
	checkPage(t, ctx, base, "13-api-keys")
	eval(t, ctx, "document.querySelector('select[name=grace]').value = '1h'", nil)
	submit(t, ctx, "document.querySelector('form[action$=\"/rotate\"] button').click()")
	mustContain(t, ctx, "Key rotated", "Your new key", "rotated: stops working")
	var secret string
	eval(t, ctx, "document.querySelector('#secret').textContent", &secret)
	if !strings.HasPrefix(secret, "cd_") {
		t.Fatalf("new key %q", secret)
	}
	checkPage(t, ctx, base, "14-api-key-rotated")
	navigate(t, ctx, base+"/sites")
	mustContain(t, ctx, "Field Notes")
	checkPage(t, ctx, base, "15-sites")

	// On a phone.
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	navigate(t, ctx, site+"/banner")
	waitFor(t, ctx, "document.querySelector('#preview').getAttribute('data-template') === 'modal'")
	var overflow bool
	eval(t, ctx, "document.documentElement.scrollWidth > window.innerWidth + 1", &overflow)
	if overflow {
		t.Errorf("the banner editor scrolls sideways on a phone")
	}
	screenshot(t, ctx, "16-phone-banner-editor")
	for i, path := range []string{"/sites", "/sites/" + siteID, "/sites/" + siteID + "/services", "/sites/" + siteID + "/scans", "/sites/" + siteID + "/consents", "/keys"} {
		navigate(t, ctx, base+path)
		eval(t, ctx, "document.documentElement.scrollWidth > window.innerWidth + 1", &overflow)
		if overflow {
			t.Errorf("%s scrolls sideways on a phone", path)
		}
		switch i {
		case 1:
			screenshot(t, ctx, "17-phone-site-overview")
		case 4:
			screenshot(t, ctx, "18-phone-consent-records")
		}
	}
	run(t, ctx, chromedp.EmulateViewport(1280, 900))

	// Sign out: the session is gone, the pages ask to sign in again.
	navigate(t, ctx, base+"/sites")
	submit(t, ctx, "document.querySelector('form[action=\"/sign-out\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	navigate(t, ctx, site)
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	var status int
	eval(t, ctx, "fetch('/sites/"+siteID+"/consents/export?format=csv', {redirect: 'manual'}).then(function (r) { return r.type === 'opaqueredirect' ? 303 : r.status; })", &status)
	if status != 303 {
		t.Fatalf("export after sign-out: %d", status)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func run(t *testing.T, ctx context.Context, a chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, a); err != nil {
		t.Fatal(err)
	}
}

type publicCfg struct {
	Banner struct {
		ConsentVersion int               `json:"consentVersion"`
		Template       string            `json:"template"`
		Colors         map[string]string `json:"colors"`
		TextOverrides  map[string]string `json:"textOverrides"`
	} `json:"banner"`
}

func publicConfig(t *testing.T, base, key string) publicCfg {
	t.Helper()
	res, err := http.Get(base + "/api/v1/public/" + key + "/config")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var c publicCfg
	if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func postConsent(t *testing.T, base, key, visitor string, cats map[string]bool, country string) {
	t.Helper()
	version := publicConfig(t, base, key).Banner.ConsentVersion
	b, _ := json.Marshal(map[string]any{"visitorId": visitor, "categories": cats, "consentVersion": version, "action": "custom"})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+key+"/consent", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Country", country)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("consent: %d %s", res.StatusCode, body)
	}
}

// consoleSnippetIsTheAPIs checks that the overview's snippet, in every framework's tab, is
// what GET /setup-snippet answers, byte for byte, instructions included.
func consoleSnippetIsTheAPIs(t *testing.T, ctx context.Context, base, siteID string) {
	t.Helper()
	for _, fw := range []string{"script", "react", "next", "cloudflare-worker"} {
		var api struct{ Code, Instructions string }
		apiGet(t, base, "/api/v1/sites/"+siteID+"/setup-snippet?framework="+fw, &api)
		if !strings.Contains(api.Code+api.Instructions, "/loader.js") {
			t.Fatalf("%s: the API's snippet does not load the loader: %s", fw, api.Code)
		}
		navigate(t, ctx, base+"/sites/"+siteID+"?framework="+fw)
		var shown struct{ Code, Instructions string }
		eval(t, ctx, "({code: document.querySelector('#snippet code').textContent, instructions: document.querySelector('section[aria-labelledby=setup] .hint').textContent})", &shown)
		if shown.Code != api.Code || shown.Instructions != api.Instructions {
			t.Fatalf("%s: the console's snippet differs from the API's:\nconsole %q\napi     %q\nconsole %q\napi     %q", fw, shown.Code, api.Code, shown.Instructions, api.Instructions)
		}
	}
	navigate(t, ctx, base+"/sites/"+siteID)
}

// apiGet calls the management API with the bootstrap key and decodes the JSON answer.
func apiGet(t *testing.T, base, path string, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}
