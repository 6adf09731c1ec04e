package crawler

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// siteConfig is testdata/sites/<name>/site.json: how to scan a recorded site and how the
// replay server behaves beyond serving files.
type siteConfig struct {
	Start        []string          `json:"start"`
	MaxPages     int               `json:"maxPages"`
	MaxDepth     int               `json:"maxDepth"`
	MaxBodyBytes int64             `json:"maxBodyBytes"`
	Password     string            `json:"password"`     // sent by the scan
	IgnoreRobots bool              `json:"ignoreRobots"` // scan option
	Gate         *gateConfig       `json:"gate"`         // storefront password gate
	DNS          map[string]string `json:"dns"`          // host → address the fake resolver answers
	// Consentd is the host that serves consentd's banner runtime (the real one, built from
	// adapters/httpapi/bannerjs) at /api/v1/public/banner.js; its configuration is recorded.
	Consentd string `json:"consentd"`
}

type gateConfig struct {
	Host     string `json:"host"`
	Password string `json:"password"`
}

// replay serves a recorded site: the response for http(s)://host/p?q is the file host/p (or
// host/p/index.html), with "@q" appended to the name when there is a query, and its optional
// sidecar "<file>.headers" holds "Status: N" and header lines (Set-Cookie, Location, ...). A
// sidecar without a body file is a body-less response (a redirect hop).
type replay struct {
	dir  string
	gate *gateConfig
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if g := rp.gate; g != nil && host == g.Host && r.URL.Path != "/robots.txt" {
		if r.URL.Path == "/password" && r.Method == http.MethodPost {
			_ = r.ParseForm()
			if r.PostForm.Get("form_type") == "storefront_password" && r.PostForm.Get("password") == g.Password {
				http.SetCookie(w, &http.Cookie{Name: "storefront_digest", Value: "d1g35t", Path: "/", HttpOnly: true})
				http.Redirect(w, r, "/", http.StatusFound)
				return
			}
			// Shops re-render the password page with an error.
			rp.serveFile(w, r, host, "/password", "")
			return
		}
		if c, err := r.Cookie("storefront_digest"); (err != nil || c.Value != "d1g35t") && r.URL.Path != "/password" {
			http.Redirect(w, r, "/password", http.StatusFound)
			return
		}
	}
	rp.serveFile(w, r, host, r.URL.Path, r.URL.RawQuery)
}

func (rp *replay) serveFile(w http.ResponseWriter, r *http.Request, host, p, query string) {
	name := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") {
		name = path.Join(name, "index.html")
	}
	if query != "" {
		name += "@" + query
	}
	file := filepath.Join(rp.dir, host, filepath.FromSlash(name))
	body, bodyErr := os.ReadFile(file)
	status := http.StatusOK
	hdr, hdrErr := os.Open(file + ".headers")
	if bodyErr != nil && hdrErr != nil {
		http.NotFound(w, r)
		return
	}
	if hdrErr == nil {
		sc := bufio.NewScanner(hdr)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if strings.EqualFold(k, "Status") {
				status, _ = strconv.Atoi(v)
				continue
			}
			w.Header().Add(k, v)
		}
		hdr.Close()
	}
	if w.Header().Get("Content-Type") == "" && bodyErr == nil {
		ct := mime.TypeByExtension(path.Ext(strings.SplitN(name, "@", 2)[0]))
		if strings.HasSuffix(name, ".html") || strings.HasPrefix(ct, "text/html") {
			ct = "text/html"
		}
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// testbed routes every host to loopback replay servers (port 443 to a TLS one) while the
// engine's address check still sees what the fake resolver answers: a public documentation
// address unless the site's dns map says otherwise.
type testbed struct {
	plain, tls *httptest.Server
}

func newTestbed(t testing.TB, h http.Handler) *testbed {
	tb := &testbed{plain: httptest.NewServer(h), tls: httptest.NewTLSServer(h)}
	t.Cleanup(tb.plain.Close)
	t.Cleanup(tb.tls.Close)
	return tb
}

func (tb *testbed) hooks(dns map[string]string) *netHooks {
	return &netHooks{
		resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := dns[host]; ok {
				return []netip.Addr{netip.MustParseAddr(a)}, nil
			}
			return []netip.Addr{netip.MustParseAddr("203.0.113.10")}, nil // TEST-NET-3
		},
		connect: func(ctx context.Context, network, addr string) (net.Conn, error) {
			target := tb.plain.Listener.Addr().String()
			if strings.HasSuffix(addr, ":443") {
				target = tb.tls.Listener.Addr().String()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, target)
		},
	}
}

func (tb *testbed) install(e *Engine, dns map[string]string) {
	e.hooks = tb.hooks(dns)
	e.tlsConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test replay server with a self-signed certificate
}

func loadSiteConfig(t testing.TB, dir string) siteConfig {
	t.Helper()
	var cfg siteConfig
	data, err := os.ReadFile(filepath.Join(dir, "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s/site.json: %v", dir, err)
	}
	return cfg
}

// TestReplayPrecisionRecall scans every recorded site and scores the detections against the
// hand-written expectations over the whole corpus: services and (service, tracking ID) pairs.
// Both precision and recall must be 100%; TestRecordedSites says which site falls short.
func TestReplayPrecisionRecall(t *testing.T) {
	t.Parallel()
	ix := catalogIndex(t)
	var tp, fp, fn int
	for _, dir := range siteDirs(t) {
		data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want expectation
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		res, err := scanSite(t, dir, ix, nil)
		if want.Error != "" || err != nil {
			if (want.Error == "") != (err == nil) {
				t.Errorf("%s: scan error %v, want one containing %q", filepath.Base(dir), err, want.Error)
			}
			continue
		}
		wantSet, gotSet := map[string]bool{}, map[string]bool{}
		for slug, ids := range want.Services {
			wantSet[slug] = true
			for _, id := range ids {
				wantSet[slug+" "+id] = true
			}
		}
		for _, s := range res.Services {
			gotSet[s.Slug] = true
			for _, id := range s.TrackingIDs {
				gotSet[s.Slug+" "+id] = true
			}
		}
		for k := range gotSet {
			if wantSet[k] {
				tp++
			} else {
				fp++
				t.Errorf("%s: unexpected %s", filepath.Base(dir), k)
			}
		}
		for k := range wantSet {
			if !gotSet[k] {
				fn++
				t.Errorf("%s: missed %s", filepath.Base(dir), k)
			}
		}
	}
	precision, recall := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1))
	t.Logf("corpus: %d detections right, %d wrong, %d missed: precision %.1f%%, recall %.1f%%", tp, fp, fn, 100*precision, 100*recall)
	if tp == 0 {
		t.Error("no detections at all")
	}
}
