package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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
	scan("button:not([value])")
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
	verdict("Compliant", "22-overview-compliant", "Verified in a browser on", "every consent state was obeyed")
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
