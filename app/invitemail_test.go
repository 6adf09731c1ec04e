package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInvitationEmail: with CONSENTD_SMTP_URL set, inviting someone in the console emails
// them the invitation (plain text and HTML) and the console says so; the link in the email
// opens the form that joins the organization. When the mail server refuses, the invitation is
// not lost: the console shows the link and says the email was not sent.
func TestInvitationEmail(t *testing.T) {
	t.Parallel()
	mail := startSMTP(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close() // nothing listens there: every mail fails
	for _, tc := range []struct {
		name, smtp, want string
		mailed           bool
	}{
		{"sent", "smtp://" + mail.ln.Addr().String() + "?from=consentd@test.example", "Invitation made and emailed to ana@shop.example", true},
		{"failed", "smtp://" + deadAddr + "?from=consentd@test.example", "the email to ana@shop.example could not be sent", false},
		{"no smtp", "", "No email was sent (this server has no mail settings)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(mail.messages())
			a, err := New(context.Background(), Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "c.db"),
				BootstrapAPIKey: testKey, Console: true, SMTPURL: tc.smtp, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			srv := httptest.NewServer(a.Handler())
			defer srv.Close()
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar}
			csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
			get := func(path string) (int, string) {
				res, err := c.Get(srv.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			post := func(path string, form url.Values, from string) (int, string) {
				m := csrf.FindStringSubmatch(from)
				if m == nil {
					t.Fatalf("no csrf field before POST %s", path)
				}
				form.Set("csrf", m[1])
				res, err := c.PostForm(srv.URL+path, form)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			_, signIn := get("/sign-in")
			if code, body := post("/sign-in", url.Values{"key": {testKey}, "next": {"/members"}}, signIn); code != 200 || !strings.Contains(body, "<h1>Members</h1>") {
				t.Fatalf("sign in with the key: %d %s", code, body)
			}
			_, members := get("/members")
			code, body := post("/members/invite", url.Values{"email": {"ana@shop.example"}, "role": {"editor"}}, members)
			if code != http.StatusCreated || !strings.Contains(body, tc.want) {
				t.Fatalf("invite: %d, want %q in:\n%s", code, tc.want, body)
			}
			shown := regexp.MustCompile(`id="invite-link"[^>]*>(http[^<]+/invite/[^<]+)<`).FindStringSubmatch(body)
			if shown == nil {
				t.Fatalf("no invitation link shown:\n%s", body)
			}
			msgs := mail.messages()[before:]
			if !tc.mailed {
				if len(msgs) != 0 {
					t.Fatalf("%d emails, want none", len(msgs))
				}
				if code, page := get(strings.TrimPrefix(shown[1], srv.URL)); code != 200 || !strings.Contains(page, "Join") {
					t.Fatalf("the link shown answers %d", code)
				}
				return
			}
			if len(msgs) != 1 {
				t.Fatalf("%d emails, want 1", len(msgs))
			}
			m := msgs[0]
			if m.To != "ana@shop.example" {
				t.Errorf("email to %q", m.To)
			}
			for _, want := range []string{"Subject: Join ", "multipart/alternative", "Content-Type: text/plain", "Content-Type: text/html",
				"invites you to join", "as editor", `<a href="` + shown[1] + `"`, "Accept the invitation: " + shown[1]} {
				if !strings.Contains(m.Data, want) {
					t.Errorf("email lacks %q:\n%s", want, m.Data)
				}
			}
			link := regexp.MustCompile(`Accept the invitation: (\S+)`).FindStringSubmatch(m.Data)
			if link == nil {
				t.Fatalf("no link in the email:\n%s", m.Data)
			}
			// The invitee follows the email's link, in their own browser, and joins.
			jar2, _ := cookiejar.New(nil)
			c = &http.Client{Jar: jar2}
			code, form := get(strings.TrimPrefix(link[1], srv.URL))
			if code != 200 || !strings.Contains(form, "ana@shop.example") {
				t.Fatalf("the emailed link answers %d:\n%s", code, form)
			}
			invitation := strings.TrimPrefix(link[1], srv.URL)
			code, signInPage := post(invitation, url.Values{"email": {"ana@shop.example"}, "name": {"Ana"},
				"password": {"correct horse battery staple"}}, form)
			if code != 200 || !strings.Contains(signInPage, "To join, sign in as ana@shop.example") {
				t.Fatalf("the invitation form: %d:\n%s", code, signInPage)
			}
			// The sign-in comes back to the link, where Ana joins with one click.
			code, joinPage := post("/sign-in", url.Values{"email": {"ana@shop.example"}, "password": {"correct horse battery staple"},
				"next": {invitation}}, signInPage)
			if code != 200 || !strings.Contains(joinPage, "Join as ana@shop.example") {
				t.Fatalf("signing in from the invitation: %d:\n%s", code, joinPage)
			}
			code, joined := post(invitation, url.Values{"step": {"join"}}, joinPage)
			if code != 200 || !strings.Contains(joined, "Sign out") {
				t.Fatalf("accepting the emailed invitation: %d:\n%s", code, joined)
			}
		})
	}
}
