package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

var (
	formToken   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	revokeForms = regexp.MustCompile(`action="/sessions/([0-9a-f]{64})/revoke"`)
)

// console is the console's base URL of a serve process.
func (p *serveProc) console() string { return strings.TrimSuffix(p.base, "/api/v1") }

// stop ends the process with SIGTERM and waits for it.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func browse(t *testing.T, c *http.Client, method, u string, form url.Values) (int, string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

// signedIn reports whether c's session opens the sites page of p.
func signedIn(t *testing.T, c *http.Client, p *serveProc) bool {
	t.Helper()
	status, loc, _ := browse(t, c, "GET", p.console()+"/sites", nil)
	if status != http.StatusOK && !strings.HasPrefix(loc, "/sign-in") {
		t.Fatalf("GET /sites: %d %s", status, loc)
	}
	return status == http.StatusOK
}

// TestSessionsAcrossServeProcesses: two serve processes on one Postgres. A console session
// opened on one works on the other, survives a restart of both, and once ended on one is
// refused by the other at its next request; a member's session ends on both when the member
// is removed on one.
func TestSessionsAcrossServeProcesses(t *testing.T) {
	t.Parallel()
	db := pgtest.FreshURL(t)
	a := startServe(t, db, "CONSENTD_WORKERS=0")
	b := startServe(t, db, "CONSENTD_WORKERS=0")

	jar, _ := cookiejar.New(nil) // cookies are per host, not port: both processes get them
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, _, html := browse(t, c, "GET", a.console()+"/sign-in", nil)
	status, loc, _ := browse(t, c, "POST", a.console()+"/sign-in", url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}, "key": {serveKey}})
	if status != http.StatusSeeOther || loc != "/sites" {
		t.Fatalf("sign-in on A: %d %s", status, loc)
	}
	if !signedIn(t, c, b) {
		t.Fatal("the session opened on A is unknown to B")
	}

	a.stop(t)
	b.stop(t)
	a = startServe(t, db, "CONSENTD_WORKERS=0")
	b = startServe(t, db, "CONSENTD_WORKERS=0")
	if !signedIn(t, c, a) || !signedIn(t, c, b) {
		t.Fatal("the session did not survive a restart of both processes")
	}

	// A second session (another browser), ended from the first one's sessions page on B.
	jar2, _ := cookiejar.New(nil)
	other := &http.Client{Jar: jar2, CheckRedirect: c.CheckRedirect}
	_, _, html = browse(t, other, "GET", b.console()+"/sign-in", nil)
	browse(t, other, "POST", b.console()+"/sign-in", url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}, "key": {serveKey}})
	if !signedIn(t, other, a) {
		t.Fatal("second session not signed in")
	}
	_, _, html = browse(t, c, "GET", b.console()+"/sessions", nil)
	ids := revokeForms.FindAllStringSubmatch(html, -1)
	if len(ids) != 2 {
		t.Fatalf("sessions page lists %d sessions, want 2", len(ids))
	}
	mine := regexp.MustCompile(`([0-9a-f]{64})/revoke"[^<]*>\s*<input[^>]*>\s*<button[^>]*>Sign out`).FindStringSubmatch(html)
	if mine == nil {
		t.Fatalf("the current session is not marked: %s", html)
	}
	for _, id := range ids {
		if id[1] == mine[1] {
			continue
		}
		status, _, _ := browse(t, c, "POST", b.console()+"/sessions/"+id[1]+"/revoke", url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}})
		if status != http.StatusSeeOther {
			t.Fatalf("revoke: %d", status)
		}
	}
	if signedIn(t, other, a) || signedIn(t, other, b) {
		t.Fatal("a session ended on B still works")
	}
	if !signedIn(t, c, a) {
		t.Fatal("ending another session ended this one")
	}

	// A member made by the operator sets a password on A, signs in on A, works on B.
	out, stderr, err := runCLI(t, []string{"CONSENTD_DATABASE_URL=" + db}, "user", "create", "--email", "ed@example.com", "--org", "default", "--role", "editor")
	if err != nil {
		t.Fatalf("user create: %v %s", err, stderr)
	}
	var u map[string]string
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		t.Fatal(err)
	}
	reset := a.console() + "/reset/" + u["passwordLink"][strings.LastIndex(u["passwordLink"], "/")+1:]
	jar3, _ := cookiejar.New(nil)
	ed := &http.Client{Jar: jar3, CheckRedirect: c.CheckRedirect}
	_, _, html = browse(t, ed, "GET", reset, nil)
	if status, _, body := browse(t, ed, "POST", reset, url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}, "password": {"a long enough password"}}); status != http.StatusSeeOther {
		t.Fatalf("set password: %d %.500s", status, body)
	}
	_, _, html = browse(t, ed, "GET", a.console()+"/sign-in", nil)
	browse(t, ed, "POST", a.console()+"/sign-in", url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}, "email": {"ed@example.com"}, "password": {"a long enough password"}})
	if !signedIn(t, ed, b) {
		t.Fatal("the member's session opened on A is unknown to B")
	}
	_, _, html = browse(t, c, "GET", b.console()+"/members", nil)
	if status, _, _ := browse(t, c, "POST", b.console()+"/members/"+u["id"]+"/remove", url.Values{"csrf": {formToken.FindStringSubmatch(html)[1]}}); status != http.StatusSeeOther {
		t.Fatalf("remove member on B: %d", status)
	}
	if signedIn(t, ed, a) || signedIn(t, ed, b) {
		t.Fatal("the removed member's session still works")
	}
}

// TestUserCommands: user create makes a member and prints a one-time link to set the
// password; the console takes it once; reset-password prints a new one; the audit log
// names the commands.
func TestUserCommands(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "cli.db")
	env := []string{"CONSENTD_DATABASE_URL=" + db, "CONSENTD_PUBLIC_URL=https://consent.example"}
	if _, stderr, err := runCLI(t, env, "org", "create", "--name", "Acme"); err != nil {
		t.Fatalf("org create: %v %s", err, stderr)
	}
	out, stderr, err := runCLI(t, env, "user", "create", "--email", "Ana@Example.com", "--org", "Acme", "--role", "privacy")
	if err != nil {
		t.Fatalf("user create: %v %s", err, stderr)
	}
	var u map[string]string
	if err := json.Unmarshal([]byte(out), &u); err != nil || u["email"] != "ana@example.com" || u["role"] != "privacy" ||
		!strings.HasPrefix(u["passwordLink"], "https://consent.example/reset/") {
		t.Fatalf("user create printed %s", out)
	}
	if _, stderr, err := runCLI(t, env, "user", "create", "--email", "x@example.com", "--org", "Acme", "--role", "root"); err == nil || !strings.Contains(stderr, "role") {
		t.Fatalf("bad role: %v %s", err, stderr)
	}
	out, stderr, err = runCLI(t, env, "user", "reset-password", "--email", "ana@example.com")
	if err != nil || !strings.Contains(out, "/reset/") {
		t.Fatalf("reset-password: %v %s %s", err, out, stderr)
	}
	if _, stderr, err := runCLI(t, env, "user", "reset-password", "--email", "nobody@example.com"); err == nil || !strings.Contains(stderr, "not found") {
		t.Fatalf("reset-password of nobody: %v %s", err, stderr)
	}
}

// TestUserResetTOTP: `consentd user reset-totp --email E` turns off a person's two-step
// sign-in and their recovery codes, and the audit log of their organization records it with
// the command as the actor; a person without it, or without an account, is refused.
func TestUserResetTOTP(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "cli.db")
	env := []string{"CONSENTD_DATABASE_URL=" + db}
	if _, stderr, err := runCLI(t, env, "org", "create", "--name", "Acme"); err != nil {
		t.Fatalf("org create: %v %s", err, stderr)
	}
	if _, stderr, err := runCLI(t, env, "user", "create", "--email", "ana@example.com", "--org", "Acme"); err != nil {
		t.Fatalf("user create: %v %s", err, stderr)
	}
	ctx := context.Background()
	open := func() *app.App {
		a, err := app.New(ctx, app.Config{DatabaseURL: db, ExistingDatabase: true})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := open()
	uc := a.UseCases()
	sys := core.WithActor(ctx, core.System("test"))
	org, err := uc.Orgs.FindOrganization(sys, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := uc.Users.Members(sys, org.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("members: %v %v", ms, err)
	}
	actor, err := uc.Users.UserActor(ctx, ms[0].UserID, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	asAna := core.WithActor(ctx, actor)
	setup, err := uc.Users.NewTOTP(asAna, ms[0].UserID, "")
	if err != nil {
		t.Fatal(err)
	}
	code, _ := identity.TOTPCode(setup.Secret, time.Now())
	if _, err := uc.Users.EnableTOTP(asAna, ms[0].UserID, setup.Secret, code); err != nil {
		t.Fatal(err)
	}
	a.Close()

	out, stderr, err := runCLI(t, env, "user", "reset-totp", "--email", "ana@example.com")
	if err != nil || !strings.Contains(out, `"twoStepSignIn": false`) {
		t.Fatalf("reset-totp: %v %s %s", err, out, stderr)
	}
	if _, stderr, err := runCLI(t, env, "user", "reset-totp", "--email", "ana@example.com"); err == nil || !strings.Contains(stderr, "no two-step sign-in") {
		t.Fatalf("reset-totp again: %v %s", err, stderr)
	}
	if _, stderr, err := runCLI(t, env, "user", "reset-totp", "--email", "nobody@example.com"); err == nil || !strings.Contains(stderr, "no account has this email") {
		t.Fatalf("reset-totp of nobody: %v %s", err, stderr)
	}
	a = open()
	defer a.Close()
	if on, err := a.UseCases().Users.TOTPEnabled(asAna, ms[0].UserID); err != nil || on {
		t.Fatalf("two-step sign-in after reset-totp: %v %v", on, err)
	}
	page, err := a.UseCases().AuditLog.AuditEntries(sys, org.ID, identity.AuditQuery{Action: core.AuditUserTOTPReset}, "")
	if err != nil || len(page.Entries) != 1 || page.Entries[0].ActorName != "consentd user reset-totp" {
		t.Fatalf("audit of reset-totp: %+v %v", page, err)
	}
}
