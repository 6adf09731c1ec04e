package crawlertest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// DeepExpectation is testdata/deep/<name>/expected.json, written by hand: what a deep scan must
// report, exactly.
type DeepExpectation struct {
	// Services maps every detected slug to its exact tracking IDs.
	Services map[string][]string `json:"services"`
	// Cookies maps every cookie the browser held ("name@domain", "@domain" left out for the
	// site's own host) to "slug duration", the slug left out for an unrecognized one.
	Cookies map[string]string `json:"cookies"`
	// Storage maps every storage key ("localStorage:name") to its slug ("" unrecognized).
	Storage map[string]string `json:"storage"`
	// PreConsent maps every service that acted before consent to what it left ("c:name" for a
	// cookie, "s:name" for a storage key) and "loaded" when it loaded something.
	PreConsent map[string][]string `json:"preConsent"`
	// Unrecognized is the exact set of unrecognized script srcs.
	Unrecognized []string `json:"unrecognized"`
	// Mentions maps every service the pages only name (Result.Mentions) to the tracking IDs
	// named ("slug" of a detected service whose IDs alone are mentions lists those IDs).
	Mentions map[string][]string `json:"mentions"`
	// Pages is the number of pages fetched.
	Pages int `json:"pages"`
	// PageErrors lists the URLs with a page error.
	PageErrors []string `json:"pageErrors"`
}

// LoadDeepExpectation reads dir/expected.json strictly.
func LoadDeepExpectation(t testing.TB, dir string) DeepExpectation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want DeepExpectation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("%s/expected.json: %v", dir, err)
	}
	return want
}

// DeepSiteDirs are the recorded deep sites under root (the repository's testdata/deep).
func DeepSiteDirs(t testing.TB, root string) []string {
	dirs, err := filepath.Glob(filepath.Join(root, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no recorded deep sites in %s: %v", root, err)
	}
	return dirs
}

// result is what the scoring reads of a crawler.Result, from its JSON.
type result struct {
	Pages    []json.RawMessage `json:"pages"`
	Services []struct {
		Slug        string   `json:"slug"`
		TrackingIDs []string `json:"trackingIds"`
	} `json:"services"`
	Cookies []struct {
		Name    string        `json:"name"`
		Domain  string        `json:"domain"`
		Service string        `json:"service"`
		MaxAge  time.Duration `json:"maxAge"`
	} `json:"cookies"`
	Storage []struct {
		Kind    string `json:"kind"`
		Name    string `json:"name"`
		Service string `json:"service"`
	} `json:"storage"`
	PreConsent []struct {
		Slug     string   `json:"slug"`
		Requests []string `json:"requests"`
		Cookies  []string `json:"cookies"`
		Storage  []string `json:"storage"`
	} `json:"preConsent"`
	Unrecognized []struct {
		Src string `json:"src"`
	} `json:"unrecognized"`
	Mentions []struct {
		Slug        string   `json:"slug"`
		TrackingIDs []string `json:"trackingIds"`
	} `json:"mentions"`
}

// Facts reads a scan result (a crawler.Result as JSON) into the items an expected file lists;
// site is the start URL's host. It also returns the number of pages fetched.
func Facts(t testing.TB, resultJSON []byte, site string) (map[string]bool, int) {
	t.Helper()
	var r result
	if err := json.Unmarshal(resultJSON, &r); err != nil {
		t.Fatalf("scan result: %v", err)
	}
	out := map[string]bool{}
	for _, s := range r.Services {
		out["service "+s.Slug] = true
		for _, id := range s.TrackingIDs {
			out["id "+s.Slug+" "+id] = true
		}
	}
	for _, c := range r.Cookies {
		key := c.Name
		if c.Domain != site {
			key += "@" + c.Domain
		}
		out["cookie "+key+" = "+strings.TrimSpace(c.Service+" "+library.DescribeDuration(c.MaxAge))] = true
	}
	for _, k := range r.Storage {
		out["storage "+k.Kind+":"+k.Name+" = "+k.Service] = true
	}
	for _, p := range r.PreConsent {
		out["pre-consent "+p.Slug] = true
		for _, c := range p.Cookies {
			out["pre-consent "+p.Slug+" c:"+c] = true
		}
		for _, s := range p.Storage {
			out["pre-consent "+p.Slug+" s:"+s] = true
		}
		if len(p.Requests) > 0 {
			out["pre-consent "+p.Slug+" loaded"] = true
		}
	}
	for _, u := range r.Unrecognized {
		out["unrecognized "+u.Src] = true
	}
	for _, m := range r.Mentions {
		out["mention "+m.Slug] = true
		for _, id := range m.TrackingIDs {
			out["mention "+m.Slug+" "+id] = true
		}
	}
	return out, len(r.Pages)
}

// ExpectedFacts are the items of an expected file.
func ExpectedFacts(want DeepExpectation) map[string]bool {
	out := map[string]bool{}
	for slug, ids := range want.Services {
		out["service "+slug] = true
		for _, id := range ids {
			out["id "+slug+" "+id] = true
		}
	}
	for k, v := range want.Cookies {
		out["cookie "+k+" = "+v] = true
	}
	for k, v := range want.Storage {
		out["storage "+k+" = "+v] = true
	}
	for slug, items := range want.PreConsent {
		out["pre-consent "+slug] = true
		for _, it := range items {
			out["pre-consent "+slug+" "+it] = true
		}
	}
	for _, u := range want.Unrecognized {
		out["unrecognized "+u] = true
	}
	for slug, ids := range want.Mentions {
		out["mention "+slug] = true
		for _, id := range ids {
			out["mention "+slug+" "+id] = true
		}
	}
	return out
}

// Score counts the facts got that were wanted, and lists those not wanted and those missed.
func Score(got, want map[string]bool) (tp int, fp, fn []string) {
	for k := range got {
		if want[k] {
			tp++
		} else {
			fp = append(fp, k)
		}
	}
	for k := range want {
		if !got[k] {
			fn = append(fn, k)
		}
	}
	sort.Strings(fp)
	sort.Strings(fn)
	return tp, fp, fn
}

// Figures prints precision and recall ("-" for precision when nothing was reported).
func Figures(tp, fp, fn int) string {
	prec := "    -"
	if tp+fp > 0 {
		prec = fmt.Sprintf("%5.1f%%", 100*float64(tp)/float64(tp+fp))
	}
	return fmt.Sprintf("precision %s recall %5.1f%%", prec, 100*float64(tp)/float64(max(tp+fn, 1)))
}

// SiteHost is the host of a site's first start URL.
func SiteHost(cfg SiteConfig) string {
	h := strings.TrimPrefix(strings.TrimPrefix(cfg.Start[0], "https://"), "http://")
	return strings.SplitN(h, "/", 2)[0]
}

// Handler serves a recorded site, and runtime (consentd's real banner runtime, which the
// caller passes in: the crawler does not depend on the adapters) on the site's consentd host,
// as the API serves it: the runtime and its lazily loaded part, each site's loader (its recorded configuration, then the
// runtime), the recorded configuration (its recorded headers), and a receipt for each consent
// posted, with the public endpoints' CORS.
func Handler(dir string, cfg SiteConfig, runtime http.Handler) http.Handler {
	rp := &Replay{Dir: dir, Gate: cfg.Gate}
	if cfg.Consentd == "" || runtime == nil {
		return rp
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		res, key, ok := core.ParsePublicPath(r.URL.EscapedPath())
		if !ok || !strings.EqualFold(host, cfg.Consentd) {
			rp.ServeHTTP(w, r)
			return
		}
		switch {
		case r.Method == http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.WriteHeader(http.StatusNoContent)
		case res == core.PublicRuntime || res == core.PublicRuntimeMore:
			runtime.ServeHTTP(w, r)
		case res == core.PublicLoader:
			conf, err := os.ReadFile(filepath.Join(dir, host, filepath.FromSlash(core.PublicPath(key, core.PublicConfigPath))+"@lang=en"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			rec := httptest.NewRecorder()
			runtime.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, core.PublicPath("", core.PublicRuntime), nil))
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			_, _ = w.Write([]byte("window.__consentdBoot="))
			_, _ = w.Write(bytes.TrimSpace(conf))
			_, _ = w.Write([]byte(";\n"))
			_, _ = w.Write(rec.Body.Bytes())
		case res == core.PublicConsentPath && r.Method == http.MethodPost:
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"rec_replayed","visitorId":"vis_replayed"}`))
		default:
			rp.ServeHTTP(w, r)
		}
	})
}

// Hosts are the hosts a recorded site serves (its folders named like hosts), and its consentd
// host.
func Hosts(t testing.TB, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	if c := LoadSite(t, dir).Consentd; c != "" {
		out = append(out, c)
	}
	return out
}

// CA makes a root CA and a server certificate it signs for hosts, and writes the CA to a PEM
// file (what --ca-cert and CONSENTD_SCAN_CA_CERT take).
func CA(t testing.TB, hosts ...string) (tls.Certificate, string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "consentd test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, file
}

// ServeTLS serves the recorded site in dir (with runtime as consentd's banner runtime) over
// TLS on loopback, with a certificate of a fresh test CA for all its hosts, until the test
// ends. It returns the site's configuration, the connect-to rule that sends every host there
// (what --connect-to and CONSENTD_SCAN_CONNECT_TO take) and the CA file.
func ServeTLS(t testing.TB, dir string, runtime http.Handler) (cfg SiteConfig, connectTo, caFile string) {
	t.Helper()
	cfg = LoadSite(t, dir)
	cert, caFile := CA(t, Hosts(t, dir)...)
	srv := httptest.NewUnstartedServer(Handler(dir, cfg, runtime))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return cfg, "::127.0.0.1:" + port, caFile
}
