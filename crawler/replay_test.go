package crawler

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/crawler/crawlertest"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library/librarytest"
)

// siteConfig and replay are crawlertest's, shared with the command's tests.
type (
	siteConfig = crawlertest.SiteConfig
	replay     = crawlertest.Replay
)

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

func (tb *testbed) hooks(dns map[string]string) *netguard.Hooks {
	return &netguard.Hooks{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := dns[host]; ok && a == "nxdomain" {
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			} else if ok {
				return []netip.Addr{netip.MustParseAddr(a)}, nil
			}
			return []netip.Addr{netip.MustParseAddr("9.9.9.9")}, nil // a public address: Connect sends every connection to the testbed
		},
		Connect: func(ctx context.Context, network, addr string) (net.Conn, error) {
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

func loadSiteConfig(t testing.TB, dir string) siteConfig { return crawlertest.LoadSite(t, dir) }

// TestReplayPrecisionRecall scans every recorded site and scores the detections against the
// hand-written expectations over the whole corpus: services and (service, tracking ID) pairs.
// Both precision and recall must be 100%; TestRecordedSites says which site falls short.
func TestReplayPrecisionRecall(t *testing.T) {
	t.Parallel()
	ix := librarytest.Index(t)
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
