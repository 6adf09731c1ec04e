package httpapi_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// TestDocsOffline loads /api/v1/docs in headless Chromium with every host but the server's
// unreachable, and finds every operation's name on the rendered page; no request may leave
// the server.
func TestDocsOffline(t *testing.T) {
	t.Parallel()
	browsertest.Require(t)
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

	// Every name resolves to nothing except the test server's loopback address.
	b := browsertest.New(browsertest.Options{})
	defer b.Close()
	ctx := b.Tab(t, 60*time.Second)

	srv, _ := url.Parse(e.srv.URL)
	browsertest.Navigate(t, ctx, e.srv.URL+"/api/v1/docs")
	browsertest.WaitFor(t, ctx, `document.body.innerText.includes(`+browsertest.JSString(summaries[0])+`) && document.body.innerText.length > 5000`, 45*time.Second)
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
