package banner_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/edge"
)

// workerPackages is Cloudflare's local Workers runtime: miniflare runs a Worker in workerd,
// the runtime Cloudflare runs Workers in, with its HTMLRewriter. (Miniflare 3: 4 needs Node 22.)
var workerPackages = &nodePackages{
	what:     "miniflare (workerd)",
	packages: []string{"miniflare@3.20250718.3"},
	dir:      "node-miniflare3.20250718.3",
	probes:   []string{"miniflare/package.json", "workerd/package.json"},
}

// workerDriver runs the Worker script (argv[3]) in miniflare with the bindings of argv[4]
// (JSON) and dispatches the requests of argv[5] (JSON: [{url, headers, cf}]) to it, one after
// the other; it prints their answers as JSON: [{status, headers, body}].
const workerDriver = `
const { createRequire } = require("module");
const fs = require("fs");
const { Miniflare } = createRequire(process.argv[2] + "/")("miniflare");
(async () => {
  const mf = new Miniflare({ modules: true, compatibilityDate: "2024-09-23", script: fs.readFileSync(process.argv[3], "utf8"),
    bindings: JSON.parse(process.argv[4]) });
  const out = [];
  try {
    for (const r of JSON.parse(fs.readFileSync(process.argv[5], "utf8"))) {
      const res = await mf.dispatchFetch(r.url, { headers: r.headers || {}, cf: r.cf || {} });
      out.push({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    }
  } finally { await mf.dispose(); }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// workerServer serves the Worker script (argv[3]) with miniflare on a port of 127.0.0.1, with
// the bindings of argv[4] (JSON) and the request.cf of argv[5] (JSON) for every request; it
// prints its URL on a line and stops when its standard input closes.
const workerServer = `
const { createRequire } = require("module");
const fs = require("fs");
const { Miniflare } = createRequire(process.argv[2] + "/")("miniflare");
(async () => {
  const mf = new Miniflare({ modules: true, compatibilityDate: "2024-09-23", script: fs.readFileSync(process.argv[3], "utf8"),
    bindings: JSON.parse(process.argv[4]), cf: JSON.parse(process.argv[5]), host: "127.0.0.1", port: 0 });
  const u = await mf.ready;
  process.stdout.write(u.href + "\n");
  process.stdin.on("end", () => mf.dispose().then(() => process.exit(0)));
  process.stdin.resume();
})().catch((e) => { console.error(e); process.exit(1); });
`

// serveWorker serves the Worker code in workerd (miniflare) in front of upstream, for visitors
// whose request.cf is cf, until the test ends, and returns its base URL.
func serveWorker(t *testing.T, code, upstream string, cf map[string]string) string {
	t.Helper()
	nm := workerPackages.path(t)
	dir := t.TempDir()
	for name, body := range map[string]string{"server.cjs": workerServer, "worker.mjs": code} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bindings, _ := json.Marshal(map[string]string{"CONSENTD_UPSTREAM": upstream})
	cfJSON, _ := json.Marshal(cf)
	cmd := exec.Command("node", filepath.Join(dir, "server.cjs"), nm, filepath.Join(dir, "worker.mjs"), string(bindings), string(cfJSON))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("miniflare: %v\n%s", err, stderr.String())
	}
	return strings.TrimRight(strings.TrimSpace(line), "/")
}

// workerRequest is a request the driver dispatches to the Worker, and its answer.
type workerRequest struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	CF      map[string]string `json:"cf,omitempty"`
}
type workerAnswer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// runWorker runs the Worker code in workerd (miniflare) in front of upstream and returns its
// answers to reqs.
func runWorker(t *testing.T, code, upstream string, reqs []workerRequest) []workerAnswer {
	t.Helper()
	nm := workerPackages.path(t)
	dir := t.TempDir()
	in, _ := json.Marshal(reqs)
	for name, body := range map[string]string{"driver.cjs": workerDriver, "worker.mjs": code, "requests.json": string(in)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bindings, _ := json.Marshal(map[string]string{"CONSENTD_UPSTREAM": upstream})
	cmd := exec.Command("node", filepath.Join(dir, "driver.cjs"), nm, filepath.Join(dir, "worker.mjs"), string(bindings), filepath.Join(dir, "requests.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("miniflare: %v\n%s", err, stderr.String())
	}
	var out []workerAnswer
	if err := json.Unmarshal(stdout, &out); err != nil || len(out) != len(reqs) {
		t.Fatalf("miniflare: %v: %.500s\n%s", err, stdout, stderr.String())
	}
	return out
}

// workerShop is a shop's page with the vendors' snippets pasted unmarked (GA4's gtag.js, Meta
// Pixel with its <noscript> pixel, Hotjar, a YouTube iframe, a Google Fonts stylesheet),
// resource hints to their hosts, and what must pass: the shop's own script, a marked tag,
// Stripe (essential) and a JSON-LD block naming a tracker's URL.
const workerShop = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Acme Outdoor</title>
<link rel=preconnect href="https://www.googletagmanager.com">
<link rel="dns-prefetch" href="//connect.facebook.net">
<link rel="preconnect" href="https://js.stripe.com">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter&amp;display=swap">
<link rel="stylesheet" href="/shop.css">
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9" nonce="n0nce" integrity="sha384-x"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-ABC123XYZ9');</script>
<script nonce='n0nce'>!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');fbq('init','123');fbq('track','PageView');</script>
<script>(function(h,o,t,j,a,r){h.hj=h.hj||function(){(h.hj.q=h.hj.q||[]).push(arguments)};h._hjSettings={hjid:1,hjsv:6};a=o.getElementsByTagName('head')[0];r=o.createElement('script');r.async=1;r.src=t+h._hjSettings.hjid+j+h._hjSettings.hjsv;a.appendChild(r);})(window,document,'https://static.hotjar.com/c/hotjar-','.js?sv=');</script>
<script type="application/ld+json">{"@context":"https://schema.org","video":"https://www.youtube.com/embed/abc"}</script>
<script type="text/plain" data-category="marketing" src="https://connect.facebook.net/signals/config/1"></script>
<script src="https://js.stripe.com/v3/"></script>
<script src="/app.js"></script>
</head><body>
<noscript><img height="1" width="1" style="display:none" src="https://www.facebook.com/tr?id=123&amp;ev=PageView&amp;noscript=1"/></noscript>
<h1>Acme Outdoor</h1>
<iframe width="560" height="315" src="https://www.youtube.com/embed/abc" title="Our tent" allowfullscreen></iframe>
<img src="/tent.jpg" alt="A tent">
</body></html>
`

// heldElement matches an element start tag holding data-category (the held and marked forms).
var heldElement = regexp.MustCompile(`<(script|iframe|link|img)\b[^>]*\bdata-category="([^"]+)"[^>]*>`)

// heldSet lists the held elements of page: tag, category and service of each, in order.
func heldSet(page string) []string {
	var out []string
	for _, m := range heldElement.FindAllStringSubmatch(page, -1) {
		svc := regexp.MustCompile(`data-consentd-service="([^"]*)"`).FindStringSubmatch(m[0])
		s := ""
		if svc != nil {
			s = svc[1]
		}
		out = append(out, m[1]+" "+m[2]+" "+s)
	}
	return out
}

// TestCloudflareWorker runs the cloudflare-worker setup snippet, as served, in workerd (through
// miniflare) in front of a shop, for visitors from France (opt-in) before a choice, after
// "Reject all" and after "Accept all", and from a no-banner region: it holds what the Go
// rewriter (adapters/edgerewrite) holds on the same page for the same visitor, in the forms the
// runtime restores; a visitor who allowed everything, or one from a no-banner region, gets the
// page byte for byte; what is not HTML passes untouched; the rule set is fetched once for all
// these page views (cached, with its ETag). Skips loudly without node; fails under CI=true.
func TestCloudflareWorker(t *testing.T) {
	t.Parallel()
	workerPackages.path(t) // skip before starting anything without node
	e := newEnv(t, "")
	for _, slug := range []string{"hotjar", "youtube"} {
		e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": slug}, 201, nil)
	}
	// Google Fonts sends the visitor's address to Google: this shop asks consent for it.
	e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": "google-fonts", "categorySlug": "marketing"}, 201, nil)
	e.patchBanner(t, map[string]any{"regionRules": []map[string]any{{"regions": []string{"JP"}, "defaultBehavior": "no_banner"}}})
	var sn struct{ Framework, Code, Instructions string }
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=cloudflare-worker", nil, 200, &sn)
	if sn.Framework != "cloudflare-worker" || !strings.Contains(sn.Code, "HTMLRewriter") || !strings.Contains(sn.Instructions, "data-project-key") {
		t.Fatalf("the cloudflare-worker snippet: %+v", sn)
	}
	// The rule set as served, for the Go rewriter; its fetches by the Worker are counted.
	var ruleFetches atomic.Int32
	api := e.srv.app.Handler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+core.PublicEdge) {
			ruleFetches.Add(1)
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	code := strings.Replace(sn.Code, e.api, front.URL, 1)
	res, body := get(t, front.URL+core.PublicPath(e.pk, core.PublicEdge), nil)
	var rs edge.RuleSet
	if err := json.Unmarshal(body, &rs); err != nil || res.StatusCode != 200 {
		t.Fatalf("rule set: %d %v %s", res.StatusCode, err, body)
	}
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/app.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "console.log('<script src=\"https://www.googletagmanager.com/gtag/js?id=G-1\"></script>')")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		fmt.Fprint(w, workerShop)
	}))
	t.Cleanup(shop.Close)

	cookie := func(c map[string]bool) string {
		v, _ := json.Marshal(map[string]any{"v": rs.ConsentVersion, "id": "x", "c": c, "a": "custom"})
		return "theme=dark; consentd=" + url.PathEscape(string(v))
	}
	accept, reject := cookie(map[string]bool{"essential": true, "statistics": true, "marketing": true}),
		cookie(map[string]bool{"essential": true, "statistics": false, "marketing": false})
	fr := map[string]string{"country": "FR", "regionCode": "IDF"}
	reqs := []workerRequest{
		{URL: "https://shop.example/", CF: fr},
		{URL: "https://shop.example/", CF: fr, Headers: map[string]string{"Cookie": reject}},
		{URL: "https://shop.example/", CF: fr, Headers: map[string]string{"Cookie": accept}},
		{URL: "https://shop.example/", CF: map[string]string{"country": "JP"}},
		{URL: "https://shop.example/app.js", CF: fr},
	}
	before := ruleFetches.Load()
	out := runWorker(t, code, shop.URL, reqs)
	t.Logf("the shop through the Worker, for a visitor from France before a choice:\n%s", out[0].Body)

	goRewrite := func(loc core.Location, cookieHeader string) string {
		var b bytes.Buffer
		base, _ := url.Parse("https://shop.example/")
		if err := edgerewrite.Rewrite(&b, strings.NewReader(workerShop), rs.Compile().Visitor(loc, cookieHeader, false), base); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	wantHeld := []string{"link marketing google-fonts", "script statistics google-analytics", "script marketing meta-pixel",
		"script statistics hotjar", "script marketing ", "img marketing meta-pixel", "iframe marketing youtube"}
	for i, name := range []string{"France, before a choice", "France, after Reject all"} {
		a := out[i]
		held := heldSet(a.Body)
		if a.Status != 200 || strings.Join(held, "|") != strings.Join(wantHeld, "|") {
			t.Errorf("%s: status %d, held %q, want %q\n%s", name, a.Status, held, wantHeld, a.Body)
		}
		c := ""
		if i == 1 {
			c = reject
		}
		if goHeld := heldSet(goRewrite(core.Location{Country: "FR", Region: "FR-IDF"}, c)); strings.Join(goHeld, "|") != strings.Join(held, "|") {
			t.Errorf("%s: the Worker holds %q, the Go rewriter %q", name, held, goHeld)
		}
		for _, gone := range []string{`href="https://www.googletagmanager.com"`, `href="//connect.facebook.net"`,
			` src="https://www.youtube.com/embed`, ` href="https://fonts.googleapis.com`, ` src="https://www.facebook.com/tr`} {
			if strings.Contains(a.Body, gone) {
				t.Errorf("%s: the page still has %s", name, gone)
			}
		}
		for _, kept := range []string{`<link rel="preconnect" href="https://js.stripe.com">`, `<script src="https://js.stripe.com/v3/"></script>`,
			`<script src="/app.js"></script>`, `"video":"https://www.youtube.com/embed/abc"}</script>`, `nonce="n0nce" integrity="sha384-x"`,
			`data-src="https://www.youtube.com/embed/abc"`, `<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9" nonce="n0nce" integrity="sha384-x" type="text/plain"`, `data-href="https://fonts.googleapis.com/css2?family=Inter&amp;display=swap"`} {
			if !strings.Contains(a.Body, kept) {
				t.Errorf("%s: the page lost %s", name, kept)
			}
		}
		if !strings.Contains(a.Headers["vary"], "Cookie") || !strings.Contains(a.Headers["vary"], "Sec-GPC") ||
			!strings.HasPrefix(a.Headers["cache-control"], "private") || strings.Contains(a.Headers["cache-control"], "public") {
			t.Errorf("%s: Vary %q, Cache-Control %q: a shared cache could hand this page to another visitor", name, a.Headers["vary"], a.Headers["cache-control"])
		}
	}
	for i, name := range map[int]string{2: "France, after Accept all", 3: "a no-banner region (JP)"} {
		if out[i].Body != workerShop {
			t.Errorf("%s: the page is not the origin's byte for byte:\n%s", name, out[i].Body)
		}
	}
	if !strings.HasPrefix(out[4].Body, "console.log(") || out[4].Headers["vary"] != "" {
		t.Errorf("a script passes untouched: %q, Vary %q", out[4].Body, out[4].Headers["vary"])
	}
	if n := ruleFetches.Load() - before; n != 1 {
		t.Errorf("the Worker fetched the rule set %d times for %d requests, want once (cached)", n, len(reqs))
	}
}
