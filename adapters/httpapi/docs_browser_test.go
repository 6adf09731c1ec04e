package httpapi_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/crawler/browser"
)

// TestDocsOffline loads /api/v1/docs in headless Chromium with every host but the server's
// unreachable, and finds every operation's name on the rendered page; no request may leave
// the server.
func TestDocsOffline(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("!!! SKIPPING BROWSER TEST: %s not found (apt-get install -y chromium) !!!", chromium)
	}
	e := newEnv(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Summary string `json:"summary"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.raw("GET", "/api/v1/openapi.json", "", "").body, &doc); err != nil {
		t.Fatal(err)
	}
	var summaries []string
	for _, ops := range doc.Paths {
		for _, op := range ops {
			if op.Summary != "" {
				summaries = append(summaries, op.Summary)
			}
		}
	}
	if len(summaries) < 30 {
		t.Fatalf("only %d operations in the document", len(summaries))
	}

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(browser.Flags(),
		chromedp.ExecPath(chromium), chromedp.Flag("no-proxy-server", true),
		// Every name resolves to nothing except the test server's loopback address.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()

	srv, _ := url.Parse(e.srv.URL)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/api/v1/docs")); err != nil {
		t.Fatal(err)
	}
	cond := `document.body.innerText.includes(` + jsString(summaries[0]) + `) && document.body.innerText.length > 5000`
	for deadline := time.Now().Add(45 * time.Second); ; {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the docs page did not render within 45s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range summaries {
		if !strings.Contains(text, s) {
			t.Errorf("operation %q not on the page", s)
		}
	}
	resources, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(function (e) { return e.name; })`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources {
		if u, err := url.Parse(r); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != srv.Host {
			t.Errorf("the page asked another host: %s", r)
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
