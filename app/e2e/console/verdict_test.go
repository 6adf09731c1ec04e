package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleVerdicts walks a site through the three verdicts of its overview, for real: a new
// site is not verified yet; a scan of its page, which embeds the YouTube player API unmarked,
// makes it not compliant, with the prompt that holds the tracker back in one step; with the
// tag marked, a privacy policy and a verification scan in Chromium of the page running the
// site's snippet, it is compliant. Each state is photographed on desktop and phone.
func TestConsoleVerdicts(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var marked atomic.Bool
	var snippet atomic.Value
	snippet.Store("")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		tag := `<script src="https://www.youtube.com/iframe_api"></script>`
		if marked.Load() {
			tag = `<script type="text/plain" data-category="marketing" src="https://www.youtube.com/iframe_api"></script>`
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">`+snippet.Load().(string)+`<title>Trail videos</title>`+tag+
			`</head><body><h1>Trail videos</h1><p>Our favourite hikes, filmed.</p><a href="https://trails.example/privacy">Privacy</a></body></html>`)
	}))
	t.Cleanup(page.Close)

	var site struct{ ID string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]any{"name": "Trail videos", "url": page.URL + "/"}, &site)
	var sn struct{ Code string }
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/setup-snippet", &sn)
	snippet.Store(sn.Code)
	overview := base + "/sites/" + site.ID

	ctx := tab(t)
	signIn(t, ctx, base)
	verdict := func(want, shot string, text ...string) {
		t.Helper()
		navigate(t, ctx, overview)
		var got string
		eval(t, ctx, "document.querySelector('#compliance .verdict').textContent", &got)
		if got != want {
			t.Fatalf("verdict %q, want %q:\n%s", got, want, text)
		}
		mustContain(t, ctx, text...)
		var report struct{ Verdict string }
		apiGet(t, base, "/api/v1/sites/"+site.ID+"/compliance", &report)
		if map[string]string{"Not verified yet": "unverified", "Not compliant": "not_compliant", "Compliant": "compliant"}[want] != report.Verdict {
			t.Fatalf("the console says %q, the API %q", want, report.Verdict)
		}
		checkPage(t, ctx, base, shot)
		onPhone(t, ctx, shot+"-phone")
	}
	verdict("Not verified yet", "20-overview-unverified", "1 error to fix in the configuration, then verify", "banner.privacyPolicyUrl = (not set)")

	scan := func(button string) {
		t.Helper()
		navigate(t, ctx, overview+"/scans")
		submit(t, ctx, "document.querySelector('form[action$=\"/scans\"] "+button+"').click()")
		waitFor(t, ctx, "/\\/scans\\/[0-9a-f-]{36}$/.test(location.pathname)")
		waitForWithin(t, ctx, "document.querySelector('.scan-status .badge-completed, .scan-status .badge-failed')", 2*time.Minute)
		mustContain(t, ctx, "Status: Completed")
	}
	// A static scan (the form's mode field, as the API's "mode"), which is quick on a busy machine.
	navigate(t, ctx, overview+"/scans")
	eval(t, ctx, "document.querySelector('form[action$=\"/scans\"]').insertAdjacentHTML('beforeend', '<input type=hidden name=mode value=static>')", nil)
	scanOn := func() {
		t.Helper()
		submit(t, ctx, "document.querySelector('form[action$=\"/scans\"] button:not([value])').click()")
		waitFor(t, ctx, "/\\/scans\\/[0-9a-f-]{36}$/.test(location.pathname)")
		waitForWithin(t, ctx, "document.querySelector('.scan-status .badge-completed, .scan-status .badge-failed')", 2*time.Minute)
		mustContain(t, ctx, "Status: Completed")
	}
	scanOn()
	mustContain(t, ctx, "Mode: static", "YouTube")
	checkPage(t, ctx, base, "21a-scan-page")
	onPhone(t, ctx, "21a-scan-page-phone")
	verdict("Not compliant", "21-overview-not-compliant", "seen by the latest scan", "The latest scan found 1 tracker that nothing holds back: YouTube",
		"Every tracker a scan found waits for consent", "youtube (Marketing)", "see the scan")
	submit(t, ctx, "document.querySelector('form[action$=\"/enforce\"] button').click()")
	mustContain(t, ctx, "1 service configured from the scan", "site-wide blocking on")
	var prompt bool
	eval(t, ctx, "!!document.querySelector('form[action$=\"/enforce\"]')", &prompt)
	if prompt {
		t.Fatal("the prompt stays after holding the tracker back")
	}

	// The owner marks the tag (a browser's preload scanner would fetch it unmarked), links the
	// privacy policy and verifies.
	marked.Store(true)
	apiDo(t, base, "PATCH", "/api/v1/sites/"+site.ID+"/banner", map[string]any{"privacyPolicyUrl": page.URL + "/privacy", "cookieExpirationDays": 180}, nil)
	scan("button[value=verify]")
	verdict("Compliant", "22-overview-compliant", "Verified in a browser on", "every consent state was obeyed",
		"What the verification checked, per regional rule", "the scanner's own location", "no_decision, reject_all, accept_all, withdrawn")
}

// signIn signs the tab in with the bootstrap key.
func signIn(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	navigate(t, ctx, base+"/sign-in")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
}

// onPhone photographs the page on a phone's viewport and checks that it does not scroll
// sideways, then goes back to the desktop viewport.
func onPhone(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	defer run(t, ctx, chromedp.EmulateViewport(1280, 900))
	var wide bool
	eval(t, ctx, "document.documentElement.scrollWidth > innerWidth + 1", &wide)
	if wide {
		t.Errorf("%s scrolls sideways on a phone", name)
	}
	screenshot(t, ctx, name)
}

// apiDo calls the management API with the bootstrap key and decodes a 2xx JSON answer into out.
func apiDo(t *testing.T, base, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// TestConsoleOwnerItems: what owners of other platforms expect in the console: the sites list
// with each site's status, a record's detail (page, language, snapshot, hash), statistics in
// plain words, a failed scan as a sentence with a retry button and its mode named, the reopen
// button and cookie-domain settings, the library saying when cookies are not documented, and
// links to the declaration page and the API reference.
func TestConsoleOwnerItems(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var site struct{ ID, ProjectKey string }
	// A closed port: scans of it fail.
	apiDo(t, base, "POST", "/api/v1/sites", map[string]any{"name": "Closed shop", "url": "http://127.0.0.1:1/"}, &site)
	for i, lang := range []string{"de", ""} {
		body := map[string]any{"visitorId": "visitor-" + string(rune('a'+i)), "categories": map[string]bool{"statistics": i == 0}, "consentVersion": 1,
			"language": lang, "runtimeVersion": "1.2.3", "pageUrl": "https://shop.example/checkout?email=x@y.z"}
		apiDo(t, base, "POST", "/api/v1/public/"+site.ProjectKey+"/consent", body, nil)
	}
	ctx := tab(t)
	signIn(t, ctx, base)

	// The sites list: the verdict, the banner's last answer, this week's decisions, the last scan.
	navigate(t, ctx, base+"/sites")
	mustContain(t, ctx, "Closed shop", "Compliance", "Not verified yet", "last answered", "2 decisions", "never scanned")
	checkPage(t, ctx, base, "23-sites")
	onPhone(t, ctx, "23-sites-phone")

	// A record's detail, and the statistics in plain words.
	navigate(t, ctx, base+"/sites/"+site.ID+"/consents")
	eval(t, ctx, "document.querySelectorAll('.record-detail details').forEach(function (d) { d.open = true; })", nil)
	mustContain(t, ctx, "Record ID", "https://shop.example/checkout", "Language shown", "de · banner runtime 1.2.3", "Snapshot of what was shown",
		"Record hash", "EU and UK", "Elsewhere")
	var neither bool
	eval(t, ctx, "document.body.innerText.indexOf('Neither') >= 0", &neither)
	if neither {
		t.Error("the statistics still say Neither")
	}
	var same bool
	eval(t, ctx, "(function () { var r = document.querySelector('svg rect[class^=bar-]'), a = document.querySelector('svg rect[class^=fill-]'); return !r || !a || getComputedStyle(r).fill === getComputedStyle(a).fill; })()", &same)
	if same {
		t.Error("the region bars reuse the action colours (or a chart is missing)")
	}
	checkPage(t, ctx, base, "24-record-detail")
	onPhone(t, ctx, "24-record-detail-phone")

	// A failed scan is a sentence with a retry button; the page names the mode.
	navigate(t, ctx, base+"/sites/"+site.ID+"/scans")
	submit(t, ctx, "document.querySelector('form[action$=\"/scans\"] button:not([value])').click()")
	waitForWithin(t, ctx, "document.querySelector('.scan-status .badge-failed')", 2*time.Minute)
	mustContain(t, ctx, "Mode: automatic", "The scan could not finish.", "then try again", "Retry the scan")
	checkPage(t, ctx, base, "25-scan-failed")
	onPhone(t, ctx, "25-scan-failed-phone")
	var before string
	eval(t, ctx, "location.pathname", &before)
	submit(t, ctx, "document.querySelector('.error form button').click()")
	var after string
	eval(t, ctx, "location.pathname", &after)
	if after == before || !strings.Contains(after, "/scans/") {
		t.Fatalf("retry went to %s", after)
	}

	// The reopen button and cookie-domain settings the API has.
	navigate(t, ctx, base+"/sites/"+site.ID+"/banner")
	fill(t, ctx, map[string]string{"#reopenLabel": "Cookie settings", "#reopenPosition": "top_right"})
	submit(t, ctx, "document.querySelector('#save-banner').click()")
	mustContain(t, ctx, "Banner saved")
	var b struct {
		ReopenLabel    *string `json:"reopenLabel"`
		ReopenPosition string  `json:"reopenPosition"`
		CookieDomain   *string `json:"cookieDomain"`
	}
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &b)
	if b.ReopenLabel == nil || *b.ReopenLabel != "Cookie settings" || b.ReopenPosition != "top_right" || b.CookieDomain != nil {
		t.Fatalf("banner after saving: %+v", b)
	}
	fill(t, ctx, map[string]string{"#cookieDomain": "example.org"})
	submit(t, ctx, "document.querySelector('#save-banner').click()")
	mustContain(t, ctx, "Not saved", "The domain to remember the choice on")

	// The library says when cookies are not documented.
	navigate(t, ctx, base+"/sites/"+site.ID+"/library?q=calendly")
	mustContain(t, ctx, "cookies not documented")

	// Links to the declaration page and the API reference.
	navigate(t, ctx, base+"/sites/"+site.ID)
	var links []string
	eval(t, ctx, "Array.from(document.querySelectorAll('a')).map(function (a) { return a.textContent + ' ' + a.getAttribute('href'); })", &links)
	joined := strings.Join(links, "\n")
	if !strings.Contains(joined, "Cookie declaration page /api/v1/public/"+site.ProjectKey+"/cookies") || !strings.Contains(joined, "API reference /api/v1/docs") {
		t.Fatalf("links %s", joined)
	}
}
