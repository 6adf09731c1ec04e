package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

const unitKey = "unit-key-0123456789abcdef"

// systemCtx is the tests' setup acting as the operator's command line would: without an
// actor the use cases refuse.
var systemCtx = core.WithActor(context.Background(), core.System("console tests"))

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// unitWorld is the console on core on memstore, behind an httptest server.
type unitWorld struct {
	srv   *httptest.Server
	clock *clock
	uc    *usecases.UseCases
}

func newUnitWorld(t *testing.T) *unitWorld { t.Helper(); return newUnitWorldAt(t, "") }

// newUnitWorldAt is newUnitWorld with the console's public URL.
func newUnitWorldAt(t *testing.T, publicURL string) *unitWorld {
	t.Helper()
	return newUnitWorldBehind(t, publicURL, nil)
}

// newUnitWorldBehind is newUnitWorldAt behind the trusted proxies in proxies (none: the
// peer's address is the client's).
func newUnitWorldBehind(t *testing.T, publicURL string, proxies []netip.Prefix) *unitWorld {
	t.Helper()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	uc, err := usecases.New(usecases.Deps{Store: memstore.New(), Catalog: cat, Now: clk.now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uc.Orgs.Bootstrap(systemCtx, unitKey); err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{UseCases: console.FromCore(uc), Now: clk.now, PublicURL: publicURL,
		TrustedProxies: proxies})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &unitWorld{srv: srv, clock: clk, uc: uc}
}

// client is a browser without JavaScript: a cookie jar, no redirects followed.
func (w *unitWorld) client(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func token(t *testing.T, html string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no CSRF token in the page: %.300s", html)
	}
	return m[1]
}

// signIn signs c in and returns the CSRF token of its session.
func (w *unitWorld) signIn(t *testing.T, c *http.Client, key string) (*http.Response, string) {
	t.Helper()
	_, html := get(t, c, w.srv.URL+"/sign-in")
	return post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "key": {key}})
}

func (w *unitWorld) session(t *testing.T) (*http.Client, string) {
	t.Helper()
	c := w.client(t)
	res, _ := w.signIn(t, c, unitKey)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sites" {
		t.Fatalf("sign-in: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	_, html := get(t, c, w.srv.URL+"/sites")
	return c, token(t, html)
}

func (w *unitWorld) siteCount(t *testing.T) int {
	t.Helper()
	orgs, err := w.uc.Orgs.Organizations(systemCtx)
	if err != nil {
		t.Fatal(err)
	}
	sites, err := w.uc.Sites.Sites(systemCtx, orgs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return len(sites)
}

// TestCSRF: a state-changing request without the session's token, with another token, or
// from another origin is refused and changes nothing; with the token it goes through.
func TestCSRF(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c, tok := w.session(t)
	site := url.Values{"name": {"Shop"}, "url": {"https://shop.example"}}
	for name, tc := range map[string]struct {
		form   url.Values
		header []string
	}{
		"no token":      {form: site},
		"wrong token":   {form: with(site, "csrf", otherToken(tok))},
		"other origin":  {form: with(site, "csrf", tok), header: []string{"Origin", "https://evil.example"}},
		"cross-site":    {form: with(site, "csrf", tok), header: []string{"Sec-Fetch-Site", "cross-site"}},
		"header absent": {form: site, header: []string{"X-CSRF-Token", ""}},
	} {
		res, body := post(t, c, w.srv.URL+"/sites", tc.form, tc.header...)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "security token") {
			t.Errorf("%s: status %d, want 403 with an explanation", name, res.StatusCode)
		}
	}
	if n := w.siteCount(t); n != 0 {
		t.Fatalf("%d sites created by refused requests", n)
	}
	if res, _ := post(t, c, w.srv.URL+"/sites", with(site, "csrf", tok)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("with the token: status %d", res.StatusCode)
	}
	if res, _ := post(t, c, w.srv.URL+"/sites", site, "X-CSRF-Token", tok); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("with the token in the htmx header: status %d", res.StatusCode)
	}
	if n := w.siteCount(t); n != 2 {
		t.Fatalf("%d sites, want 2", n)
	}
	// Sign-out needs the token too: a cross-site page cannot sign a person out.
	if res, _ := post(t, c, w.srv.URL+"/sign-out", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-out without the token: status %d", res.StatusCode)
	}
	// The sign-in form has its own token (login CSRF).
	res, _ := post(t, w.client(t), w.srv.URL+"/sign-in", url.Values{"key": {unitKey}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in without the form's token: status %d", res.StatusCode)
	}
}

func with(v url.Values, k, val string) url.Values {
	out := url.Values{}
	for a, b := range v {
		out[a] = b
	}
	out.Set(k, val)
	return out
}

// TestSessionEnds: an expired, idle or signed-out session is refused, for pages and for
// state changes, and the cookie is HttpOnly and SameSite=Strict.
func TestSessionEnds(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)

	c := w.client(t)
	res, _ := w.signIn(t, c, unitKey)
	var ck *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == "consentd_session" {
			ck = k
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.MaxAge <= 0 || ck.Secure {
		t.Fatalf("session cookie over HTTP: %+v", ck)
	}
	// Behind HTTPS (the public URL says so) the cookie is Secure too.
	ws := newUnitWorldAt(t, "https://consent.example")
	res, _ = ws.signIn(t, ws.client(t), unitKey)
	for _, k := range res.Cookies() {
		if k.Name == "consentd_session" && (!k.Secure || !k.HttpOnly) {
			t.Fatalf("session cookie over HTTPS: %+v", k)
		}
	}

	refused := func(name string, c *http.Client, tok string) {
		t.Helper()
		res, _ := get(t, c, w.srv.URL+"/sites")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/sign-in") {
			t.Fatalf("%s: GET /sites gave %d %s, want a redirect to sign in", name, res.StatusCode, res.Header.Get("Location"))
		}
		res, _ = post(t, c, w.srv.URL+"/sites", url.Values{"csrf": {tok}, "name": {"x"}, "url": {"https://x.example"}})
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: POST /sites gave %d, want 401", name, res.StatusCode)
		}
	}

	// Signed out: the old cookie, replayed, is worth nothing.
	c1, tok1 := w.session(t)
	old := c1.Jar.Cookies(mustURL(t, w.srv.URL))
	if res, _ := post(t, c1, w.srv.URL+"/sign-out", url.Values{"csrf": {tok1}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", res.StatusCode)
	}
	replay := w.client(t)
	replay.Jar.SetCookies(mustURL(t, w.srv.URL), old)
	refused("signed out", replay, tok1)

	// Idle for longer than the idle timeout.
	c2, tok2 := w.session(t)
	w.clock.advance(61 * time.Minute)
	refused("idle", c2, tok2)

	// Active, but older than the session's lifetime.
	c3, tok3 := w.session(t)
	for range 14 {
		w.clock.advance(55 * time.Minute)
		get(t, c3, w.srv.URL+"/sites")
	}
	refused("expired", c3, tok3)
	if n := w.siteCount(t); n != 0 {
		t.Fatalf("%d sites created by ended sessions", n)
	}
}

// TestSignInLimit: after five failed sign-ins an address waits, even with the right key.
func TestSignInLimit(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c := w.client(t)
	for i := range 5 {
		res, body := w.signIn(t, c, "wrong-key-"+string(rune('a'+i)))
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not valid") {
			t.Fatalf("failure %d: status %d", i, res.StatusCode)
		}
	}
	res, body := w.signIn(t, c, unitKey)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many failed sign-ins") || res.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth attempt: status %d", res.StatusCode)
	}
	w.clock.advance(16 * time.Minute)
	if res, _ := w.signIn(t, c, unitKey); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the window: status %d", res.StatusCode)
	}
}

// TestHeaders: every page has the strict policy; sign-in redirects keep to the console.
func TestHeaders(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c := w.client(t)
	res, _ := get(t, c, w.srv.URL+"/sign-in")
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q allows unsafe sources", csp)
	}
	if res.Header.Get("X-Frame-Options") != "DENY" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers: %v", res.Header)
	}
	_, html := get(t, c, w.srv.URL+"/sign-in?next=//evil.example/")
	if !strings.Contains(html, `name="next" value="/sites"`) {
		t.Errorf("an off-site next survived")
	}
	res, _ = get(t, c, w.srv.URL+"/assets/vendor/htmx.min.js")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("htmx: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res, _ := get(t, c, w.srv.URL+"/assets/"); res.StatusCode != 404 {
		t.Errorf("asset listing: %d", res.StatusCode)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestKeys: a key created in the console is shown once and signs in; rotating the session's
// own key keeps the session; revoking a key ends the sessions opened with it.
func TestKeys(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c, tok := w.session(t)
	res, html := post(t, c, w.srv.URL+"/keys", url.Values{"csrf": {tok}, "name": {"deploy"}})
	m := regexp.MustCompile(`id="secret"[^>]*>(cd_[^<]+)<`).FindStringSubmatch(html)
	if res.StatusCode != http.StatusCreated || m == nil {
		t.Fatalf("create: %d %.400s", res.StatusCode, html)
	}
	c2 := w.client(t)
	if res, _ := w.signIn(t, c2, m[1]); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in with the new key: %d", res.StatusCode)
	}
	_, html = get(t, c2, w.srv.URL+"/keys")
	tok2 := token(t, html)
	id := regexp.MustCompile(`/keys/([0-9a-f-]{36})/revoke" aria-label="Revoke the key deploy"`).FindStringSubmatch(html)
	if id == nil {
		t.Fatalf("no revoke link for the key: %.2000s", html)
	}
	if res, _ := post(t, c2, w.srv.URL+"/keys/"+id[1]+"/rotate", url.Values{"csrf": {tok2}, "grace": {"0"}}); res.StatusCode != http.StatusCreated {
		t.Fatalf("rotate: %d", res.StatusCode)
	}
	if res, _ := get(t, c2, w.srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("after rotating the session's own key: %d", res.StatusCode)
	}
	_, html = get(t, c, w.srv.URL+"/keys")
	all := regexp.MustCompile(`/keys/([0-9a-f-]{36})/revoke" aria-label="Revoke the key deploy"`).FindAllStringSubmatch(html, -1)
	if len(all) != 2 {
		t.Fatalf("%d keys named deploy listed, want the rotated one and its successor", len(all))
	}
	id = all[1] // the successor, newest, listed last
	if res, _ := post(t, c, w.srv.URL+"/keys/"+id[1]+"/revoke", url.Values{"csrf": {tok}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	if res, _ := get(t, c2, w.srv.URL+"/sites"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("session of a revoked key: %d, want a redirect to sign in", res.StatusCode)
	}
	if res, _ := get(t, c, w.srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("the other session: %d", res.StatusCode)
	}
}

// otherToken is tok with its first character changed: a token that differs from the session's
// in one place. (Replacing it with a fixed letter would, one time in 32, change nothing.)
func otherToken(tok string) string {
	if tok[0] == 'a' {
		return "b" + tok[1:]
	}
	return "a" + tok[1:]
}
