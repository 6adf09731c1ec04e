package console_test

import (
	"context"
	"strings"
	"testing"
)

// TestTeamJourney: in headless Chromium against the real server, an owner invites a
// colleague as editor; the colleague accepts the link, is signed in, edits the banner, has no
// API keys in the navigation and is refused the keys page; the owner's audit log shows the
// banner change with the colleague's name and the old and new template. Every page is
// checked (axe-core, nothing from outside) and photographed.
func TestTeamJourney(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ctx := tab(t)
	base := srv.base

	navigate(t, ctx, base+"/sign-in")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	fill(t, ctx, map[string]string{"#site-name": "Field Notes", "#site-url": "https://blog.example/"})
	submit(t, ctx, "document.querySelector('form[action=\"/sites\"] button').click()")
	waitFor(t, ctx, "/^\\/sites\\/[0-9a-f-]{36}$/.test(location.pathname)")
	var siteID string
	eval(t, ctx, "location.pathname.split('/')[2]", &siteID)

	// The owner invites a colleague as editor and copies the link.
	navigate(t, ctx, base+"/members")
	fill(t, ctx, map[string]string{"#invite-email": "ed@example.com"})
	eval(t, ctx, "document.querySelector('#invite-role').value = 'editor'", nil)
	submit(t, ctx, "document.querySelector('form[action=\"/members/invite\"] button').click()")
	mustContain(t, ctx, "Invitation for ed@example.com", "works once, for 7 days")
	checkPage(t, ctx, base, "t01-members-invitation")
	var link string
	eval(t, ctx, "document.querySelector('#invite-link').textContent", &link)
	if !strings.HasPrefix(link, base+"/invite/") {
		t.Fatalf("invitation link %q", link)
	}
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")

	// The colleague accepts and is signed in.
	navigate(t, ctx, link)
	mustContain(t, ctx, "You are invited as editor, as ed@example.com")
	checkPage(t, ctx, base, "t02-invitation")
	fill(t, ctx, map[string]string{"#name": "Ed Editor", "#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('main form button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	mustContain(t, ctx, "To join, sign in as ed@example.com")
	checkPage(t, ctx, base, "t02a-invitation-sign-in")
	fill(t, ctx, map[string]string{"#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('form[aria-labelledby=\"pw-h\"] button').click()")
	waitFor(t, ctx, "location.pathname.indexOf('/invite/') === 0")
	mustContain(t, ctx, "Join as ed@example.com")
	checkPage(t, ctx, base, "t02b-invitation-join")
	submit(t, ctx, "document.querySelector('main form button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	mustContain(t, ctx, "Field Notes")
	var navText string
	eval(t, ctx, "document.querySelector('nav[aria-label=Main]').innerText", &navText)
	if strings.Contains(navText, "API keys") || strings.Contains(navText, "Audit log") {
		t.Fatalf("an editor's navigation offers %q", navText)
	}

	// The editor changes the banner's template and saves it.
	navigate(t, ctx, base+"/sites/"+siteID+"/banner")
	eval(t, ctx, "var r = document.querySelector('input[name=template][value=modal]'); r.checked = true; r.dispatchEvent(new Event('change', {bubbles: true}))", nil)
	submit(t, ctx, "document.querySelector('#save-banner').click()")
	mustContain(t, ctx, "Banner saved")
	checkPage(t, ctx, base, "t03-editor-banner-saved")

	// The API keys page is refused, without actions.
	navigate(t, ctx, base+"/keys")
	mustContain(t, ctx, "Your role does not allow this", "editor role")
	var forms int
	eval(t, ctx, "document.querySelectorAll('main form').length", &forms)
	if forms != 0 {
		t.Fatalf("the keys page shows an editor %d forms", forms)
	}
	checkPage(t, ctx, base, "t04-editor-keys-refused")
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")

	// The owner reads the audit log.
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/audit?verify=1")
	mustContain(t, ctx, "The log holds", "Ed Editor", "banner.update", "Template: floating → modal", "member.join", "member.invite")
	checkPage(t, ctx, base, "t05-audit-log")
}

// joinInBrowser accepts an invitation in the tab as a new person: the form (name and
// password), the sign-in it leads to (the email filled in), back to the link, Join.
func joinInBrowser(t *testing.T, ctx context.Context, link, name, password string) {
	t.Helper()
	navigate(t, ctx, link)
	fill(t, ctx, map[string]string{"#name": name, "#password": password})
	submit(t, ctx, "document.querySelector('main form button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	signInToJoin(t, ctx, password)
}

// signInToJoin signs in on the sign-in page an invitation led to (its email filled in),
// comes back to the invitation and joins.
func signInToJoin(t *testing.T, ctx context.Context, password string) {
	t.Helper()
	fill(t, ctx, map[string]string{"#password": password})
	submit(t, ctx, "document.querySelector('form[aria-labelledby=\"pw-h\"] button').click()")
	waitFor(t, ctx, "location.pathname.indexOf('/invite/') === 0")
	submit(t, ctx, "document.querySelector('main form button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
}
