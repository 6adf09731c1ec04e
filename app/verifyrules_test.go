package app

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// regionalShop serves a two-page shop over TLS whose pages load consentd's runtime from this
// consentd (the live server at base, behind consent.regional-shop.example), and, when broken,
// an unmarked inline Meta pixel tag (its first-party _fbp cookie) that reads the Do Not Sell or
// Share signal backwards: it stays off where the visitor must opt in, but sets its cookie once
// the visitor clicked Do Not Sell. Being inline and unmarked, no blocking rule can hold it. It returns the shop's
// URL, the connect-to rule and the CA file, and sets the project key through pk.
func regionalShop(t testing.TB, base string, pk *atomic.Value, broken bool, pages int) (string, string, string) {
	t.Helper()
	const shop, api = "www.regional-shop.example", "consent.regional-shop.example"
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	toConsentd := httputil.NewSingleHostReverseProxy(target)
	page := func(w http.ResponseWriter, title string) {
		key, _ := pk.Load().(string)
		tag := ""
		if broken {
			tag = `<script>(function go() {
  var c = window.consentd && window.consentd.getConsent();
  if (!c || !c.ready) return setTimeout(go, 50);
  if (c.categories.marketing || (c.doNotSell && !c.gpc)) {
    document.cookie = '_fbp=fb.1.1700000000.42; path=/; max-age=7776000';
  }
})();</script>`
		}
		nav := ""
		for i := 1; i < pages; i++ {
			nav += fmt.Sprintf(`<a href="/p%d.html">page %d</a> `, i, i)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<script src="https://%s/api/v1/public/%s/loader.js"></script>%s</head>
<body><h1>%s</h1>%s</body></html>`, title, api, key, tag, title, nav)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		switch {
		case host == api:
			r.Host = target.Host
			toConsentd.ServeHTTP(w, r)
		case host == "connect.facebook.net":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.cookie = "_fbp=fb.1.1; path=/; max-age=7776000";`)
		case r.URL.Path == "/":
			page(w, "Regional shop: home")
		case strings.HasPrefix(r.URL.Path, "/p") && strings.HasSuffix(r.URL.Path, ".html"):
			page(w, "Regional shop: "+strings.TrimSuffix(r.URL.Path[1:], ".html"))
		default:
			http.NotFound(w, r)
		}
	})
	cert, caFile := crawlertest.CA(t, shop, api, "connect.facebook.net")
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return "https://" + shop + "/", "::127.0.0.1:" + port, caFile
}

// verifiedShop starts consentd on dialect and the regional shop (regionalShop, with that many
// pages, each linking every other) whose site it creates.
func verifiedShop(t testing.TB, dialect string, broken bool, pages int) (*running, *core.Site) {
	t.Helper()
	var pk atomic.Value
	var base atomic.Value
	proxy := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, _ := url.Parse(base.Load().(string))
		u.Path = "" // r.base ends in the API prefix, which the runtime's URLs carry already
		req.Host = u.Host
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, req)
	})
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	shop, rule, caFile := regionalShop(t, front.URL, &pk, broken, pages)
	r := serve(t, dialect, func(c *Config) {
		c.ScanConnectTo = []string{rule}
		c.ScanCACert, c.ChromiumPath = caFile, browsertest.Path
		c.ScanTimeout = 3 * time.Minute
	})
	base.Store(r.base)
	site := r.createSite(t, shop)
	pk.Store(site.ProjectKey)
	return r, site
}

// TestVerifyScanPerRegionalRule: a site with the preset "GDPR in Europe, US state laws,
// nothing elsewhere" is verified once per rule as a visitor from a place that rule covers (the
// US rule with a GPC run too), and the compliance report says per rule what was verified, when
// and from where. A tag that ignores the Do Not Sell or Share control fails only the opt-out
// rule, and the verdict is not compliant. The verifications' own decisions leave the site's
// consent log empty.
func TestVerifyScanPerRegionalRule(t *testing.T) {
	t.Parallel()
	needChromium(t)
	for _, broken := range []bool{false, true} {
		t.Run(fmt.Sprintf("broken=%v", broken), func(t *testing.T) {
			t.Parallel()
			r, site := verifiedShop(t, "sqlite", broken, 1)
			r.call(t, "PATCH", "/sites/"+site.ID+"/banner", map[string]any{"regionRules": banner.RegionPresets()[0].RegionRules,
				"privacyPolicyUrl": "https://www.regional-shop.example/privacy.html"}, nil)
			var s scan.Scan
			r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "verify"}, &s)
			got := r.waitScan(t, site.ID, s.ID, 3*time.Minute)
			if got.Status != scan.ScanCompleted || got.Verification == nil {
				t.Fatalf("scan %s: %v", got.Status, deref(got.ErrorMessage))
			}
			v := got.Verification
			places := map[string]string{}
			for _, rv := range v.Rules {
				var states []string
				for _, st := range rv.States {
					states = append(states, st.State)
				}
				places[rv.Rule] = rv.Location + " " + rv.Behavior + " " + strings.Join(states, ",")
				t.Logf("%s from %s (%s): banner %v, control %v, states %v, unreached %v", rv.Rule, rv.Location, rv.Behavior,
					rv.BannerShown, rv.DoNotSellControl, states, rv.Unreached)
				switch rv.Behavior {
				case banner.BehaviorOptOut:
					if !rv.BannerShown || !rv.DoNotSellControl || strings.Join(states, ",") != "no_decision,do_not_sell,gpc" {
						t.Errorf("opt-out run %+v", places[rv.Rule])
					}
				case banner.BehaviorNoBanner:
					if rv.BannerShown || strings.Join(states, ",") != "no_decision,gpc" {
						t.Errorf("no-banner run %s, banner %v", places[rv.Rule], rv.BannerShown)
					}
				case banner.BehaviorOptIn:
					if !rv.BannerShown || !strings.HasPrefix(strings.Join(states, ","), "no_decision,reject_all,accept_all,withdrawn") {
						t.Errorf("opt-in run %s", places[rv.Rule])
					}
				}
			}
			if len(v.Rules) != len(banner.RegionPresets()[0].RegionRules) {
				t.Fatalf("%d rule runs: %v", len(v.Rules), places)
			}
			var rep scan.ComplianceReport
			r.call(t, "GET", "/sites/"+site.ID+"/compliance", nil, &rep)
			for _, f := range rep.Findings {
				t.Logf("finding %s %s: %s", f.Severity, f.RuleID, f.Detail)
			}
			for _, rr := range rep.Rules {
				if rr.VerifiedAt == nil || rr.Location == "" {
					t.Errorf("rule result without when or where: %+v", rr)
				}
				wantPass := !broken || rr.Behavior != banner.BehaviorOptOut
				if rr.Passed != wantPass {
					t.Errorf("rule %s (%s from %s): passed %v, want %v", rr.Rule, rr.Behavior, rr.Location, rr.Passed, wantPass)
				}
			}
			if broken == rep.Compliant || len(rep.Rules) != len(v.Rules) {
				t.Errorf("verdict %s with broken=%v", rep.Verdict, broken)
			}
			// The verification's clicks are nobody's decision.
			var recs struct {
				Records []*consent.ConsentRecord `json:"records"`
				Total   int                      `json:"total"`
			}
			r.call(t, "GET", "/sites/"+site.ID+"/consent-records", nil, &recs)
			if recs.Total != 0 {
				t.Errorf("the verification stored %d consent records", recs.Total)
			}
		})
	}
}

// TestVerifyScansLeaveNoTrace (SQLite and Postgres): after 10 verification scans of a site with
// visitors' decisions in its log, the site's consent records, their chain, the statistics and
// the export are exactly what they were before.
func TestVerifyScansLeaveNoTrace(t *testing.T) {
	t.Parallel()
	needChromium(t)
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			r, site := verifiedShop(t, dialect, false, 1)
			for _, body := range []string{`{"categories":{"statistics":true,"marketing":true},"consentVersion":1}`, `{"categories":{},"consentVersion":1}`} {
				res, err := http.Post(r.base+"/public/"+site.ProjectKey+"/consent", "application/json", strings.NewReader(body))
				if err != nil || res.StatusCode != http.StatusCreated {
					t.Fatalf("a visitor's decision: %v %v", res, err)
				}
				res.Body.Close()
			}
			// The statistics over a fixed window of days around now: their default window (the 30
			// days before now) moves on at midnight UTC, which a run of this test may cross.
			day := time.Now().UTC()
			stats := "/consent-stats?from=" + day.AddDate(0, 0, -1).Format(time.DateOnly) + "&to=" + day.AddDate(0, 0, 2).Format(time.DateOnly)
			proof := func() []string {
				t.Helper()
				var out []string
				for _, p := range []string{"/consent-records", "/consent-records/verify", stats, "/consent-records/export"} {
					req, _ := http.NewRequest("GET", r.base+"/sites/"+site.ID+p, nil)
					req.Header.Set("Authorization", "Bearer "+testKey)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						t.Fatalf("GET %s: %d %s", p, res.StatusCode, b)
					}
					out = append(out, string(b))
				}
				return out
			}
			before := proof()
			// The ten scans are queued at once and run on the workers side by side, as scheduled
			// verifications of a busy deployment would.
			ids := make([]string, 10)
			for i := range ids {
				var s scan.Scan
				r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "verify"}, &s)
				ids[i] = s.ID
			}
			for i, id := range ids {
				got := r.waitScan(t, site.ID, id, 5*time.Minute)
				if got.Status != scan.ScanCompleted || got.Verification == nil || got.Verification.Banner != core.BannerConsentd ||
					len(got.Verification.States) < 4 {
					t.Fatalf("scan %d: %s %v %+v", i, got.Status, deref(got.ErrorMessage), got.Verification)
				}
			}
			after := proof()
			for i, what := range []string{"records", "chain", "statistics", "export"} {
				if before[i] != after[i] {
					t.Errorf("%s changed:\n%s\n%s", what, before[i], after[i])
				}
			}
		})
	}
}
