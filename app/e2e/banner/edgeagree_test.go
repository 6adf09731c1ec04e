package banner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	xhtml "golang.org/x/net/html"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/edge"
)

// TestBrowserEdgeAgreesWithRuntime (#43): the runtime and the edge can never disagree. 200
// generated pages, each of scripts and iframes whose URLs mix the hosts and paths of the
// blocking rules with others (in upper and lower case, absolute, scheme-relative and
// relative), are fed, for a visitor from Germany (opt-in) with no decision or one of three
// decisions in the consent cookie, to both: the runtime in headless Chromium, which marks
// each element it holds (data-consentd-service), and the Go rewriter with the rule set that
// GET /public/{projectKey}/edge serves. Both must hold the same elements of every page.
func TestBrowserEdgeAgreesWithRuntime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true)
	e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": "hotjar"}, 201, nil)
	var sn struct{ Code string }
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=script", nil, 200, &sn)
	e.snippet = sn.Code

	res, err := http.Get(e.api + core.PublicPath(e.pk, core.PublicEdge))
	if err != nil {
		t.Fatal(err)
	}
	var rs edge.RuleSet
	err = json.NewDecoder(res.Body).Decode(&rs)
	res.Body.Close()
	if err != nil || edgerewrite.Check(&rs) != nil {
		t.Fatalf("rule set: %v %v", err, edgerewrite.Check(&rs))
	}
	m := rs.Compile()

	port := e.site.thirdPort()
	hosts := []string{"www.googletagmanager.com", "connect.facebook.net", "www.google-analytics.com", "www.facebook.com", "tracker.test",
		"WWW.GoogleTagManager.COM", "static.hotjar.com", "www.googletagmanager.com", "connect.facebook.net", "static.hotjar.com"}
	paths := []string{"/gtag/js?id=G-X1", "/gtag/js?id=AW-1", "/gtag/js?id=GT-1", "/gtag/js?id=DC-1", "/gtag/js", "/gtm.js?id=GTM-1",
		"/en_US/fbevents.js", "/de_DE/fbevents.js", "/signals/config/123", "/analytics.js", "/tr?id=1", "/static/track.js?id=x",
		"/c/hotjar-123456.js?sv=6", "/g/collect?v=2", "/gtag/js?x=1&id=G-X2"}
	decisions := []map[string]bool{nil, {"statistics": true}, {"marketing": true}, {"statistics": true, "marketing": true}}
	rng := rand.New(rand.NewPCG(43, 200))

	// 200 page views: longer than the usual tab's deadline.
	ctx := chrome.Tab(t, 10*time.Minute)
	heldSome, passedSome := 0, 0
	for i := range 200 {
		var body strings.Builder
		n := 3 + rng.IntN(6)
		for k := range n {
			u := paths[rng.IntN(len(paths))]
			switch h := hosts[rng.IntN(len(hosts))]; rng.IntN(8) {
			case 0, 1:
				u = "//" + h + ":" + port + u
			case 2:
				// relative to the page (the site's own host)
			default:
				u = "https://" + h + ":" + port + u
			}
			attr := fmt.Sprintf(`data-t="%d"`, k)
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&body, "<iframe %s src=\"%s\" width=\"20\" height=\"20\"></iframe>\n", attr, u)
			} else {
				extra := []string{"", " async", ` type="module"`, " defer"}[rng.IntN(4)]
				fmt.Fprintf(&body, "<script %s%s src=\"%s\"></script>\n", attr, extra, u)
			}
		}
		page := e.shop(fmt.Sprintf("agree-%d", i), "en", "", body.String())

		// The visitor's decision, as the runtime writes it.
		cookie := ""
		if d := decisions[i%len(decisions)]; d != nil {
			c := map[string]bool{}
			for _, slug := range rs.Categories {
				c[slug] = d[slug]
			}
			c["essential"] = true
			raw, _ := json.Marshal(map[string]any{"v": rs.ConsentVersion, "c": c, "a": "custom", "t": 1})
			cookie = url.PathEscape(string(raw))
		}
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, network.DeleteCookies, network.DeleteCookiesParams{Name: "consentd", URL: page}); err != nil {
				return err
			}
			if cookie == "" {
				return nil
			}
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: "consentd", Value: cookie, URL: page, Path: "/"})
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		navigate(t, ctx, page)
		waitFor(t, ctx, `!!window.consentd && consentd.getConsent().ready && document.readyState === 'complete'`)
		var runtime []string
		eval(t, ctx, `Array.from(document.querySelectorAll('[data-t]')).filter(function (el) { return el.hasAttribute('data-consentd-service'); }).map(function (el) { return el.getAttribute('data-t'); })`, &runtime)

		// The rewriter, on the same page for the same visitor.
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		v := m.Visitor(core.Location{Country: "DE"}, "consentd="+cookie, false)
		pageURL, _ := url.Parse(page)
		err = edgerewrite.Rewrite(&out, resp.Body, v, pageURL)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		rewriter := heldIn(t, out.Bytes())
		slices.Sort(runtime)
		if !slices.Equal(runtime, rewriter) {
			t.Errorf("page %d (decision %v): the runtime holds %v, the rewriter %v\n%s", i, decisions[i%len(decisions)], runtime, rewriter, body.String())
		}
		if len(rewriter) > 0 {
			heldSome++
		}
		if len(rewriter) < n {
			passedSome++
		}
	}
	if heldSome < 50 || passedSome < 50 {
		t.Fatalf("the generated pages are too one-sided: %d hold something, %d let something through", heldSome, passedSome)
	}
}

// heldIn returns the data-t of the elements of a rewritten page that the rewriter held.
func heldIn(t *testing.T, page []byte) []string {
	doc, err := xhtml.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode {
			id, held := "", false
			for _, a := range n.Attr {
				switch a.Key {
				case "data-t":
					id = a.Val
				case "data-consentd-service":
					held = true
				}
			}
			if id != "" && held {
				out = append(out, id)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	slices.Sort(out)
	return out
}
