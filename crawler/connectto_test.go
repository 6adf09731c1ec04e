package crawler

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library/librarytest"
)

// testCA is a root CA and a server certificate it signed for the given names.
func testCA(t *testing.T, names ...string) (caPEM []byte, leaf tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "consentd test root"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestConnectToTLS scans a site and its tag manager container served by one TLS server on
// loopback under their real names, trusted through an extra root CA: no DNS, no internet.
func TestConnectToTLS(t *testing.T) {
	t.Parallel()
	caPEM, leaf := testCA(t, "www.shop-local.example", "www.googletagmanager.com")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "www.shop-local.example" && r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><script async src="https://www.googletagmanager.com/gtm.js?id=GTM-LOCAL12"></script></head><body>Shop</body></html>`)
		case r.Host == "www.googletagmanager.com" && r.URL.Path == "/gtm.js" && r.URL.Query().Get("id") == "GTM-LOCAL12":
			http.SetCookie(w, &http.Cookie{Name: "_gtm_probe", Value: "1", Path: "/", MaxAge: 60})
			w.Header().Set("Content-Type", "application/javascript")
			fmt.Fprint(w, `var data = {"resource": {"version": "3", "tags": [{"function": "__html", "vtp_html": "<script>!function(f,b,e,v){}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');fbq('init', '556677889900112');</script>"}]}};`)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	caFile := filepath.Join(t.TempDir(), "root.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	rule := func(s string) netguard.ConnectTo {
		r, err := netguard.ParseConnectTo(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	named := []netguard.ConnectTo{rule("www.shop-local.example:443:127.0.0.1:" + port), rule("www.googletagmanager.com:443:127.0.0.1:" + port)}
	anyHost := []netguard.ConnectTo{rule("::127.0.0.1:" + port)}
	e := New(librarytest.Index(t))
	crawl := func(mutate func(*Options)) (*Result, error) {
		opts := Options{StartURLs: []string{"https://www.shop-local.example/"}, IgnoreRobots: true, AllowPrivate: true,
			Timeout: 20 * time.Second}
		mutate(&opts)
		return e.Crawl(context.Background(), opts)
	}

	for name, mutate := range map[string]func(*Options){
		"named rules, PEM bytes": func(o *Options) { o.ConnectTo, o.RootCAPEM = named, caPEM },
		"any host, PEM file":     func(o *Options) { o.ConnectTo, o.RootCAFile = anyHost, caFile },
	} {
		res, err := crawl(mutate)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]string{}
		for _, s := range res.Services {
			got[s.Slug] = strings.Join(s.TrackingIDs, ",")
		}
		if fmt.Sprint(got) != "map[google-tag-manager:GTM-LOCAL12 meta-pixel:556677889900112]" {
			t.Errorf("%s: services %v; errors %+v", name, got, res.Errors)
		}
		if len(res.Errors) != 0 {
			t.Errorf("%s: page errors %+v", name, res.Errors)
		}
		want := ObservedCookie{Name: "_gtm_probe", Domain: "www.googletagmanager.com", Path: "/", MaxAge: time.Minute, ThirdParty: true,
			URLs: []string{"https://www.googletagmanager.com/gtm.js?id=GTM-LOCAL12"}, Pages: []string{"https://www.shop-local.example/"}}
		if len(res.Cookies) != 1 || fmt.Sprintf("%+v", res.Cookies[0]) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s: cookies %+v, want %+v", name, res.Cookies, want)
		}
	}

	// The address check applies to the address dialled after the rule.
	_, err := crawl(func(o *Options) { o.ConnectTo, o.RootCAPEM, o.AllowPrivate = named, caPEM, false })
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindRefused || err.Error() != "refused to scan 127.0.0.1: loopback address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)" {
		t.Errorf("loopback target without AllowPrivate: err %v", err)
	}
	// Without the extra root, the certificate is not trusted.
	_, err = crawl(func(o *Options) { o.ConnectTo = named })
	if !errors.As(err, &se) || se.Kind != KindFetch || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the root CA: err %v", err)
	}
	// The container fetch goes through the rules too: sent to a closed port, it fails.
	closed := rule("www.googletagmanager.com:443:127.0.0.1:1")
	res, err := crawl(func(o *Options) { o.ConnectTo, o.RootCAPEM = []netguard.ConnectTo{named[0], closed}, caPEM })
	if err != nil || len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].URL, "https://www.googletagmanager.com/gtm.js") ||
		!strings.Contains(res.Errors[0].Message, "connection refused") {
		t.Errorf("container without a rule: err %v, page errors %+v", err, res)
	}
	for name, mutate := range map[string]func(*Options){
		"bad PEM":  func(o *Options) { o.RootCAPEM = []byte("not a certificate") },
		"no file":  func(o *Options) { o.RootCAFile = filepath.Join(t.TempDir(), "missing.pem") },
		"bad rule": func(o *Options) { o.ConnectTo = []netguard.ConnectTo{{Port: "x"}} },
	} {
		if _, err := crawl(mutate); !errors.As(err, &se) || se.Kind != KindInvalidInput {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
