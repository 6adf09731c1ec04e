package crawler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/crawler/extract"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library"
	"github.com/consentd/consentd/library/librarytest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/sites")

// expectation is testdata/sites/<name>/expected.json, written by hand: the oracle of precision
// and recall on the corpus.
type expectation struct {
	// Services maps every slug that must be detected (and no other) to its exact tracking IDs.
	Services map[string][]string `json:"services"`
	// Gated lists the services that must be reported gated; the others must not be.
	Gated []string `json:"gated"`
	// InjectsTags lists the services flagged as tag managers.
	InjectsTags []string `json:"injectsTags"`
	// Unrecognized is the exact set of unrecognized script srcs.
	Unrecognized []string `json:"unrecognized"`
	// Cookies, when present, maps every observed cookie name to its service slug ("" none).
	Cookies map[string]string `json:"cookies"`
	// PageErrors maps every URL with a page error to a substring of its message.
	PageErrors map[string]string `json:"pageErrors"`
	// Pages, when not zero, is the number of pages fetched.
	Pages int `json:"pages"`
	// Error, when set, is a substring of the scan's error: the scan must fail.
	Error string `json:"error"`
	// Deep, when set, is what a deep scan of the site must report where it differs from the
	// static one (TestCorpusScores), with why; a field left out is the static one.
	Deep *deepDiff `json:"deep"`
}

// deepDiff is a recorded site's deep expectations where a browser legitimately sees otherwise
// than the HTML: a snippet whose loader is missing from the recording loads nothing (a
// mention, not a detection), a variable resolved at run time gives an ID.
type deepDiff struct {
	Why          string              `json:"why"`
	Services     map[string][]string `json:"services"`
	Unrecognized []string            `json:"unrecognized"`
	Cookies      map[string]string   `json:"cookies"`
}

func siteDirs(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "sites", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no recorded sites: %v", err)
	}
	return dirs
}

func scanSite(t testing.TB, dir string, ix *library.Index, mutate func(*Options)) (*Result, error) {
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, &replay{Dir: dir, Gate: cfg.Gate})
	e := New(ix)
	tb.install(e, cfg.DNS)
	opts := Options{StartURLs: cfg.Start, MaxPages: cfg.MaxPages, MaxDepth: cfg.MaxDepth, MaxBodyBytes: cfg.MaxBodyBytes,
		StorefrontPassword: cfg.Password, IgnoreRobots: cfg.IgnoreRobots, Concurrency: 4, Timeout: 30 * time.Second}
	if mutate != nil {
		mutate(&opts)
	}
	return e.Crawl(context.Background(), opts)
}

func TestRecordedSites(t *testing.T) {
	t.Parallel()
	ix := librarytest.Index(t)
	for _, dir := range siteDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			var want expectation
			data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("expected.json: %v", err)
			}
			for slug := range want.Services {
				if ix.Service(slug) == nil {
					t.Errorf("expected.json names %q, which is not in the catalog", slug)
				}
			}
			res, err := scanSite(t, dir, ix, nil)
			checkGolden(t, dir, res, err)
			if want.Error != "" {
				if err == nil || !strings.Contains(err.Error(), want.Error) {
					t.Fatalf("scan error = %v, want one containing %q", err, want.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("scan failed: %v", err)
			}
			checkExpectation(t, want, res)
		})
	}
}

func checkExpectation(t *testing.T, want expectation, res *Result) {
	t.Helper()
	got := map[string][]string{}
	var gated, injects []string
	for _, s := range res.Services {
		got[s.Slug] = s.TrackingIDs
		if s.Gated {
			gated = append(gated, s.Slug)
		}
		if s.InjectsTags {
			injects = append(injects, s.Slug)
		}
	}
	for slug, ids := range want.Services {
		g, ok := got[slug]
		if !ok {
			t.Errorf("missed service %s (recall)", slug)
			continue
		}
		if fmt.Sprint(g) != fmt.Sprint(sorted(ids)) {
			t.Errorf("service %s: tracking IDs %v, want %v", slug, g, sorted(ids))
		}
	}
	for slug := range got {
		if _, ok := want.Services[slug]; !ok {
			t.Errorf("unexpected service %s (precision); evidence: %+v", slug, evidenceOf(res, slug))
		}
	}
	if fmt.Sprint(gated) != fmt.Sprint(sorted(want.Gated)) {
		t.Errorf("gated services %v, want %v", gated, sorted(want.Gated))
	}
	if fmt.Sprint(injects) != fmt.Sprint(sorted(want.InjectsTags)) {
		t.Errorf("tag managers %v, want %v", injects, sorted(want.InjectsTags))
	}
	var unrec []string
	for _, u := range res.Unrecognized {
		unrec = append(unrec, u.Src)
	}
	if fmt.Sprint(unrec) != fmt.Sprint(sorted(want.Unrecognized)) {
		t.Errorf("unrecognized scripts\n got %q\nwant %q", unrec, sorted(want.Unrecognized))
	}
	if want.Cookies != nil {
		gotCookies := map[string]string{}
		for _, c := range res.Cookies {
			gotCookies[c.Name] = c.Service
		}
		if fmt.Sprint(gotCookies) != fmt.Sprint(want.Cookies) {
			t.Errorf("cookies %v, want %v", gotCookies, want.Cookies)
		}
	}
	gotErrs := map[string]string{}
	for _, e := range res.Errors {
		gotErrs[e.URL] += e.Message + "; "
	}
	for u, sub := range want.PageErrors {
		if !strings.Contains(gotErrs[u], sub) {
			t.Errorf("page error of %s = %q, want one containing %q", u, gotErrs[u], sub)
		}
	}
	for u, msg := range gotErrs {
		if _, ok := want.PageErrors[u]; !ok {
			t.Errorf("unexpected page error %s: %s", u, msg)
		}
	}
	if want.Pages != 0 && len(res.Pages) != want.Pages {
		t.Errorf("%d pages fetched, want %d", len(res.Pages), want.Pages)
	}
}

func evidenceOf(res *Result, slug string) []extract.Evidence {
	for _, s := range res.Services {
		if s.Slug == slug {
			return s.Evidence
		}
	}
	return nil
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	if c == nil {
		c = []string{}
	}
	return c
}

// checkGolden compares the full result (or error) with golden.json; -update rewrites it.
func checkGolden(t *testing.T, dir string, res *Result, err error) {
	t.Helper()
	out := struct {
		Error  string  `json:"error,omitempty"`
		Result *Result `json:"result,omitempty"`
	}{Result: res}
	if err != nil {
		out.Error = err.Error()
	}
	got, merr := json.MarshalIndent(out, "", "  ")
	if merr != nil {
		t.Fatal(merr)
	}
	got = append(got, '\n')
	file := filepath.Join(dir, "golden.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, rerr := os.ReadFile(file)
	if rerr != nil {
		t.Errorf("%v (run go test -run TestRecordedSites -update to create it)", rerr)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("result differs from %s (run with -update after checking the change):\n%s", file, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

func TestStorefrontPassword(t *testing.T) {
	t.Parallel()
	ix := librarytest.Index(t)
	dir := filepath.Join("..", "testdata", "sites", "shop-password")
	_, err := scanSite(t, dir, ix, func(o *Options) { o.StorefrontPassword = "wrong-one" })
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindPassword || err.Error() != "storefront password rejected by http://shop.example/password" {
		t.Errorf("wrong password: err = %v", err)
	}
	if IsTemporary(err) {
		t.Error("a wrong password is not temporary")
	}
	_, err = scanSite(t, dir, ix, func(o *Options) { o.StorefrontPassword = "" })
	if !errors.As(err, &se) || se.Kind != KindPassword || !strings.Contains(err.Error(), "none was given") {
		t.Errorf("no password: err = %v", err)
	}
}

// TestRefusesLoopback runs the production resolver and dialer against a real loopback server.
func TestRefusesLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<script src="https://www.googletagmanager.com/gtag/js?id=G-LOOP123456"></script>`)
	}))
	defer srv.Close()
	e := New(librarytest.Index(t))
	_, err := e.Crawl(context.Background(), Options{StartURLs: []string{srv.URL + "/"}, IgnoreRobots: true})
	want := "refused to scan 127.0.0.1: loopback address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if IsTemporary(err) {
		t.Error("a refused address is not temporary")
	}
	res, err := e.Crawl(context.Background(), Options{StartURLs: []string{srv.URL + "/"}, IgnoreRobots: true, AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Services) != 1 || res.Services[0].Slug != "google-analytics" {
		t.Errorf("services = %+v", res.Services)
	}
}

// TestCrawlRefusesEmbeddedIPv4 crawls URLs whose host is an IPv6 literal embedding 127.0.0.1
// with the production resolver and dialer: the loopback listener must see no connection.
func TestCrawlRefusesEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	e := New(librarytest.Index(t))
	for _, host := range []string{"[::ffff:127.0.0.1]", "[::127.0.0.1]", "[::ffff:0:127.0.0.1]", "[64:ff9b::7f00:1]",
		"[2002:7f00:1::1]", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "[2606:4700::5efe:127.0.0.1]"} {
		u := "http://" + host + ":" + port + "/"
		_, err := e.Crawl(context.Background(), Options{StartURLs: []string{u}, IgnoreRobots: true, Timeout: 10 * time.Second})
		var se *Error
		if !errors.As(err, &se) || se.Kind != KindRefused || !strings.Contains(err.Error(), ": loopback address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)") {
			t.Errorf("%s: err = %v, want a refused loopback address", u, err)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the loopback listener accepted %d connections", n)
	}
	// The listener does see the mapped form when private addresses are allowed, so the check
	// above is not vacuous.
	_, _ = e.Crawl(context.Background(), Options{StartURLs: []string{"http://[::ffff:127.0.0.1]:" + port + "/"},
		IgnoreRobots: true, AllowPrivate: true, Timeout: 10 * time.Second, PageTimeout: 2 * time.Second})
	ln.Close()
	<-done
	if accepted.Load() == 0 {
		t.Error("with AllowPrivate the mapped address was not dialled")
	}
}

func TestIsTemporary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&Error{Kind: KindHTTPStatus, Temporary: true}, true},
		{&Error{Kind: KindPassword}, false},
		{fmt.Errorf("x: %w", &net.DNSError{Err: "no such host", IsNotFound: true}), false},
		{&net.DNSError{Err: "server misbehaving", IsTemporary: true}, true},
		{context.DeadlineExceeded, true},
		{syscall.ECONNRESET, true},
		{syscall.ECONNREFUSED, true},
		{&netguard.RefusedError{Reason: "loopback"}, false},
		{errors.New("something else"), false},
	}
	for _, c := range cases {
		if got := IsTemporary(c.err); got != c.want {
			t.Errorf("IsTemporary(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	e := New(librarytest.Index(t))
	for _, starts := range [][]string{nil, {"ftp://x.example/"}, {"/relative"}, {"http://"},
		strings.Split(strings.Repeat("http://a.example/,", 11), ",")[:11]} {
		_, err := e.Crawl(context.Background(), Options{StartURLs: starts})
		var se *Error
		if !errors.As(err, &se) || se.Kind != KindInvalidInput {
			t.Errorf("%v: err = %v", starts, err)
		}
	}
}
