package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// proxiedWorld is the unit world behind a trusted proxy on loopback: each request's
// X-Forwarded-For is its client address, so that a test tries from as many addresses as it
// likes.
func proxiedWorld(t *testing.T) *unitWorld {
	t.Helper()
	return newUnitWorldBehind(t, "", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
}

// member makes a person with password "right password 1" in a new organization of their
// own (as its owner) and, with totp, turns their authenticator on; it returns their ID, the
// authenticator's secret and their recovery codes.
func (w *unitWorld) member(t *testing.T, email string, totp bool) (string, string, []string) {
	t.Helper()
	ctx := systemCtx
	org, err := w.uc.Orgs.CreateOrganization(ctx, "org of "+email)
	if err != nil {
		t.Fatal(err)
	}
	u, err := w.uc.Users.CreateMember(core.WithActor(ctx, core.System("test")), org.ID, email, "", "right password 1", core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	if !totp {
		return u.ID, "", nil
	}
	a, _ := w.uc.Users.UserActor(ctx, u.ID, org.ID)
	setup, err := w.uc.Users.NewTOTP(core.WithActor(ctx, a), u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	code, _ := identity.TOTPCode(setup.Secret, w.clock.now())
	codes, err := w.uc.Users.EnableTOTP(core.WithActor(ctx, a), u.ID, setup.Secret, code)
	if err != nil {
		t.Fatal(err)
	}
	w.clock.advance(30 * time.Second) // the enabling code's step is used
	return u.ID, setup.Secret, codes
}

// personSession is a browser with a session of the member userID in their first
// organization (opened by core: the member's second factor is not what is tested here).
func (w *unitWorld) personSession(t *testing.T, userID string) *http.Client {
	t.Helper()
	ms, err := w.uc.Users.Memberships(context.Background(), userID)
	if err != nil || len(ms) == 0 {
		t.Fatalf("memberships: %v", err)
	}
	tok, _, err := w.uc.Sessions.StartSession(context.Background(), identity.SessionStart{OrgID: ms[0].OrgID, UserID: userID}, identity.SessionTTL)
	if err != nil {
		t.Fatal(err)
	}
	c := w.client(t)
	c.Jar.SetCookies(mustURL(t, w.srv.URL), []*http.Cookie{{Name: "consentd_session", Value: tok, Path: "/"}})
	return c
}

// wrongCode is a 6-digit code that is none of secret's codes around now.
func wrongCode(t *testing.T, secret string, now time.Time) string {
	t.Helper()
	near := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
		c, err := identity.TOTPCode(secret, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		near[c] = true
	}
	for n := 123456; ; n = (n + 111111) % 1000000 {
		if c := fmt.Sprintf("%06d", n); !near[c] {
			return c
		}
	}
}

var totpSecretShown = regexp.MustCompile(`id="totp-secret" class="break">([A-Z2-7]+)<`)

// TestPasswordFormsLimit tries 20 wrong passwords, codes or links through every console form
// that takes one (the sign-in with a key, with a password, its code step with an
// authenticator code and with a recovery code, the invitation form, the password reset with a
// link that is not valid or used, turning the authenticator on and off, new recovery codes),
// first from one address, then each from another address for one account, and sees the
// sign-in limit: the first core.SignInFailures are answered, every later one is 429 with
// Retry-After. The HTTP API has no endpoint that takes a password or a code (its API keys
// are random secrets, and a storefront password is a site's, not an account's).
func TestPasswordFormsLimit(t *testing.T) {
	t.Parallel()
	w := proxiedWorld(t)
	ctx := systemCtx
	w.member(t, "pat@example.com", false)
	_, tedSecret, _ := w.member(t, "ted@example.com", true)
	w.member(t, "rita@example.com", true)
	w.member(t, "ana@example.com", false)
	umaID, _, _ := w.member(t, "uma@example.com", false)
	doraID, doraSecret, _ := w.member(t, "dora@example.com", true)
	rexID, rexSecret, _ := w.member(t, "rex@example.com", true)
	// The owner of another organization invites Ana, who has an account.
	bobID, _, _ := w.member(t, "bob@example.com", false)
	bms, _ := w.uc.Users.Memberships(ctx, bobID)
	bob, _ := w.uc.Users.UserActor(ctx, bobID, bms[0].OrgID)
	invitation, err := w.uc.Users.Invite(core.WithActor(ctx, bob), bob.OrgID, "ana@example.com", core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	usedReset, err := w.uc.Users.ResetLink(ctx, "pat@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.uc.Users.ResetPassword(ctx, usedReset, "right password 1"); err != nil {
		t.Fatal(err)
	}

	signIn := func(c *http.Client, addr string, form url.Values) (*http.Response, string) {
		_, html := get(t, c, w.srv.URL+"/sign-in")
		form.Set("csrf", token(t, html))
		return post(t, c, w.srv.URL+"/sign-in", form, "X-Forwarded-For", addr)
	}
	// codeStep signs email in with the right password and sends code at the code step.
	codeStep := func(addr, email, code string) *http.Response {
		c := w.client(t)
		res, html := signIn(c, addr, url.Values{"email": {email}, "password": {"right password 1"}})
		if res.StatusCode != http.StatusOK {
			return res // the password step is limited too
		}
		res, _ = post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "step": {"code"}, "code": {code}}, "X-Forwarded-For", addr)
		return res
	}
	// totpForm sends a wrong code to one of the authenticator page's forms, signed in.
	totpForm := func(userID, path, secret string) func(int, string) *http.Response {
		var c *http.Client
		return func(_ int, addr string) *http.Response {
			if c == nil { // opened when the form's turn comes: sessions end after an idle hour
				c = w.personSession(t, userID)
			}
			_, html := get(t, c, w.srv.URL+"/account/totp")
			form := url.Values{"csrf": {token(t, html)}}
			if secret == "" { // setting up: the secret the page shows
				m := totpSecretShown.FindStringSubmatch(html)
				if m == nil {
					t.Fatalf("no secret on the setup page: %.500s", html)
				}
				form.Set("secret", m[1])
				form.Set("code", wrongCode(t, m[1], w.clock.now()))
			} else {
				form.Set("code", wrongCode(t, secret, w.clock.now()))
			}
			res, _ := post(t, c, w.srv.URL+path, form, "X-Forwarded-For", addr)
			return res
		}
	}
	cases := []struct {
		name string
		// account says the form concerns an account, so that it is limited per account too.
		account bool
		wrong   int // the status of a wrong attempt
		try     func(i int, addr string) *http.Response
		// after, when set, is what the limit must also refuse afterwards (the right secret).
		after func(addr string) *http.Response
	}{
		{"sign-in with a key", false, http.StatusUnauthorized, func(i int, addr string) *http.Response {
			res, _ := signIn(w.client(t), addr, url.Values{"key": {"cd_wrong-key-" + strconv.Itoa(i)}})
			return res
		}, func(addr string) *http.Response {
			res, _ := signIn(w.client(t), addr, url.Values{"key": {unitKey}})
			return res
		}},
		{"sign-in with a password", true, http.StatusUnauthorized, func(i int, addr string) *http.Response {
			res, _ := signIn(w.client(t), addr, url.Values{"email": {"pat@example.com"}, "password": {"wrong password " + strconv.Itoa(i)}})
			return res
		}, func(addr string) *http.Response {
			res, _ := signIn(w.client(t), addr, url.Values{"email": {"pat@example.com"}, "password": {"right password 1"}})
			return res
		}},
		{"code step, authenticator code", true, http.StatusUnauthorized, func(_ int, addr string) *http.Response {
			return codeStep(addr, "ted@example.com", wrongCode(t, tedSecret, w.clock.now()))
		}, func(addr string) *http.Response {
			right, _ := identity.TOTPCode(tedSecret, w.clock.now())
			return codeStep(addr, "ted@example.com", right)
		}},
		{"code step, recovery code", true, http.StatusUnauthorized, func(i int, addr string) *http.Response {
			return codeStep(addr, "rita@example.com", fmt.Sprintf("wrong-%05d", i)[:5]+"-"+"aaaa"+strconv.Itoa(i%6+2))
		}, nil},
		{"invitation form, an account's email", true, http.StatusSeeOther, func(i int, addr string) *http.Response {
			c := w.client(t)
			_, html := get(t, c, w.srv.URL+"/invite/"+invitation)
			res, _ := post(t, c, w.srv.URL+"/invite/"+invitation, url.Values{"csrf": {token(t, html)}, "name": {"Mallory"},
				"password": {"a guessed password " + strconv.Itoa(i)}}, "X-Forwarded-For", addr)
			return res
		}, func(addr string) *http.Response {
			// The attempts counted against Ana's account, as failed sign-ins do.
			res, _ := signIn(w.client(t), addr, url.Values{"email": {"ana@example.com"}, "password": {"right password 1"}})
			return res
		}},
		{"password reset, a link not valid or used", false, http.StatusNotFound, func(i int, addr string) *http.Response {
			link := identity.NewSessionToken()
			if i%2 == 1 {
				link = usedReset
			}
			res, _ := post(t, w.client(t), w.srv.URL+"/reset/"+link, url.Values{"password": {"a new password " + strconv.Itoa(i)}}, "X-Forwarded-For", addr)
			return res
		}, nil},
		{"turning the authenticator on", true, http.StatusBadRequest, totpForm(umaID, "/account/totp", ""), nil},
		{"turning the authenticator off", true, http.StatusBadRequest, totpForm(doraID, "/account/totp/disable", doraSecret), nil},
		{"new recovery codes", true, http.StatusBadRequest, totpForm(rexID, "/account/totp/recovery", rexSecret), nil},
	}
	for n, tc := range cases {
		scenarios := []string{"one address"}
		if tc.account {
			scenarios = append(scenarios, "one account, each attempt from another address")
		}
		for s, scenario := range scenarios {
			addr := func(i int) string {
				if s == 0 {
					return fmt.Sprintf("10.%d.0.1", n)
				}
				return fmt.Sprintf("10.%d.1.%d", n, i+1)
			}
			var got []int
			for i := range 20 {
				res := tc.try(i, addr(i))
				got = append(got, res.StatusCode)
				if i >= identity.SignInFailures && (res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "") {
					t.Errorf("%s, %s: attempt %d answered %d (Retry-After %q), want 429; all: %v", tc.name, scenario, i+1,
						res.StatusCode, res.Header.Get("Retry-After"), got)
					break
				}
				if i < identity.SignInFailures && res.StatusCode != tc.wrong {
					t.Errorf("%s, %s: attempt %d answered %d, want %d", tc.name, scenario, i+1, res.StatusCode, tc.wrong)
					break
				}
			}
			if tc.after != nil {
				next := addr(20)
				if s == 0 && tc.account {
					next = fmt.Sprintf("10.%d.2.1", n) // the account alone must wait
				}
				if res := tc.after(next); res.StatusCode != http.StatusTooManyRequests {
					t.Errorf("%s, %s: the right secret afterwards answered %d, want 429", tc.name, scenario, res.StatusCode)
				}
			}
			w.clock.advance(identity.SignInWindow + time.Minute)
		}
	}
}

// TestInvitationSameAnswer: the owner of organization B invites the email of an admin of
// organization A and the email of nobody. Not signed in, both links show the same page, and
// the form answers both alike (the same redirect to the sign-in, no session), with a wrong
// password or any; nothing lets the owner tell which email has an account. Ana signs in
// through the sign-in and joins with one click; Bob, signed in as himself, is told to sign in
// as the invited email, his Join is refused, and the link still works for Ana.
func TestInvitationSameAnswer(t *testing.T) {
	t.Parallel()
	w := proxiedWorld(t)
	ctx := systemCtx
	anaID, _, _ := w.member(t, "ana@example.com", false)
	bobID, _, _ := w.member(t, "bob@example.com", false)
	bms, _ := w.uc.Users.Memberships(ctx, bobID)
	bob, _ := w.uc.Users.UserActor(ctx, bobID, bms[0].OrgID)
	links := map[string]string{}
	for _, email := range []string{"ana@example.com", "new@example.com"} {
		secret, err := w.uc.Users.Invite(core.WithActor(ctx, bob), bob.OrgID, email, core.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		links[email] = secret
	}
	// norm is a page or a redirect without what differs by design: the link, the email, the
	// form's token.
	norm := func(s, email string) string {
		s = strings.ReplaceAll(s, links[email], "LINK")
		s = strings.ReplaceAll(s, email, "EMAIL")
		s = strings.ReplaceAll(s, url.QueryEscape(email), "EMAIL")
		return csrfField.ReplaceAllString(s, `name="csrf" value="TOKEN"`)
	}
	type answer struct {
		status         int
		location, body string
		session        bool
	}
	answers := map[string][]answer{}
	for _, email := range []string{"ana@example.com", "new@example.com"} {
		c := w.client(t)
		res, html := get(t, c, w.srv.URL+"/invite/"+links[email])
		answers[email] = append(answers[email], answer{status: res.StatusCode, body: norm(html, email)})
		for _, pw := range []string{"a wrong password", "right password 1"} {
			res, body := post(t, c, w.srv.URL+"/invite/"+links[email], url.Values{"csrf": {token(t, html)}, "name": {"Mallory"}, "password": {pw}},
				"X-Forwarded-For", "10.9.9.9")
			var session bool
			for _, k := range res.Cookies() {
				session = session || k.Name == "consentd_session"
			}
			answers[email] = append(answers[email], answer{status: res.StatusCode, location: norm(res.Header.Get("Location"), email),
				body: norm(body, email), session: session})
			res, html = get(t, c, w.srv.URL+"/invite/"+links[email])
			answers[email] = append(answers[email], answer{status: res.StatusCode, body: norm(html, email)})
		}
	}
	a, n := answers["ana@example.com"], answers["new@example.com"]
	for i := range a {
		if a[i] != n[i] {
			t.Errorf("answer %d differs:\nan account: %+v\nno account: %+v", i, a[i], n[i])
		}
	}
	if a[1].status != http.StatusSeeOther || !strings.HasPrefix(a[1].location, "/sign-in?") || a[1].session {
		t.Fatalf("the form's answer: %+v", a[1])
	}
	if ms, _ := w.uc.Users.Memberships(ctx, anaID); len(ms) != 1 {
		t.Fatalf("the form made Ana a member of %d organizations", len(ms))
	}

	// Bob, signed in as himself, on Ana's link.
	bc := w.personSession(t, bobID)
	_, html := get(t, bc, w.srv.URL+"/invite/"+links["ana@example.com"])
	if !strings.Contains(html, "Signed in with another email") || strings.Contains(html, `value="join"`) {
		t.Fatalf("Bob's view of Ana's invitation: %.2000s", html)
	}
	res, body := post(t, bc, w.srv.URL+"/invite/"+links["ana@example.com"], url.Values{"csrf": {token(t, html)}, "step": {"join"}})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "sign in as ana@example.com") {
		t.Fatalf("Bob joins with Ana's invitation: %d %.1000s", res.StatusCode, body)
	}
	// Ana signs in (the sign-in's own form and limit), comes back and joins.
	c := w.client(t)
	_, html = get(t, c, w.srv.URL+"/sign-in?invited=1&email=ana%40example.com&next=%2Finvite%2F"+links["ana@example.com"])
	if !strings.Contains(html, `value="ana@example.com"`) || !strings.Contains(html, "To join, sign in as ana@example.com") {
		t.Fatalf("sign-in page after the invitation form: %.2000s", html)
	}
	res, _ = post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {"ana@example.com"}, "password": {"right password 1"},
		"next": {"/invite/" + links["ana@example.com"]}}, "X-Forwarded-For", "10.8.8.8")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/invite/"+links["ana@example.com"] {
		t.Fatalf("Ana's sign-in: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	_, html = get(t, c, w.srv.URL+"/invite/"+links["ana@example.com"])
	if !strings.Contains(html, "Join as ana@example.com") {
		t.Fatalf("Ana's view of her invitation: %.2000s", html)
	}
	if res, _ := post(t, c, w.srv.URL+"/invite/"+links["ana@example.com"], url.Values{"csrf": {token(t, html)}, "step": {"join"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ana joins: %d", res.StatusCode)
	}
	ms, _ := w.uc.Users.Memberships(ctx, anaID)
	if len(ms) != 2 {
		t.Fatalf("Ana belongs to %d organizations after joining", len(ms))
	}
	if res, _ := get(t, c, w.srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("Ana's session after joining: %d", res.StatusCode)
	}
	// The link is used up.
	if res, _ := get(t, w.client(t), w.srv.URL+"/invite/"+links["ana@example.com"]); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the used link: %d", res.StatusCode)
	}
}

// TestFirstOwnerLink: the first owner's link (no email named) creates one account, used up
// by it; its owner signs in through the sign-in, which comes back to the link and goes on to
// the sites. The link creates no second owner.
func TestFirstOwnerLink(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	secret, err := w.uc.Users.BootstrapOwnerLink(systemCtx)
	if err != nil || secret == "" {
		t.Fatalf("link: %q %v", secret, err)
	}
	link := w.srv.URL + "/invite/" + secret
	c := w.client(t)
	_, html := get(t, c, link)
	if !strings.Contains(html, `id="email"`) {
		t.Fatalf("the first owner's page asks for no email: %.1500s", html)
	}
	res, _ := post(t, c, link, url.Values{"csrf": {token(t, html)}, "email": {"Olga@Example.com"}, "name": {"Olga"}, "password": {"a long enough password"}})
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/sign-in?") || mustURL(t, loc).Query().Get("email") != "olga@example.com" {
		t.Fatalf("the form: %d %s", res.StatusCode, loc)
	}
	_, html = get(t, c, w.srv.URL+loc)
	res, _ = post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {"olga@example.com"}, "password": {"a long enough password"},
		"next": {"/invite/" + secret}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/invite/"+secret {
		t.Fatalf("sign-in: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := get(t, c, link); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sites" {
		t.Fatalf("the used link, signed in: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res, body := get(t, c, w.srv.URL+"/members"); res.StatusCode != http.StatusOK || !strings.Contains(body, "olga@example.com") {
		t.Fatalf("the first owner's members page: %d", res.StatusCode)
	}
	other := w.client(t)
	if res, _ := get(t, other, link); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the used link, signed out: %d", res.StatusCode)
	}
	if res, _ := post(t, other, link, url.Values{"email": {"eve@example.com"}, "password": {"a long enough password"}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a second owner through the used link: %d", res.StatusCode)
	}
}
