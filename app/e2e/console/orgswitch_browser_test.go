package console_test

import (
	"strings"
	"testing"
)

// TestOrgSwitcher: in headless Chromium against the real server, a person who belongs to two
// organizations sees the switcher in the header, switches with it and sees the other
// organization's sites (and not the first's); someone in one organization has no switcher.
// The pages are checked (axe-core, nothing from outside) and photographed.
func TestOrgSwitcher(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ctx := tab(t)
	base := srv.base
	second, err := srv.app.UseCases().Orgs.CreateOrganization(systemCtx, "Harbour Co")
	if err != nil {
		t.Fatal(err)
	}
	_, secondKey, err := srv.app.UseCases().Orgs.CreateAPIKey(systemCtx, second.ID, "harbour owner", "")
	if err != nil {
		t.Fatal(err)
	}

	signInKey := func(key string) {
		navigate(t, ctx, base+"/sign-in")
		fill(t, ctx, map[string]string{"#key": key})
		submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
		waitFor(t, ctx, "location.pathname === '/sites'")
	}
	signOut := func() {
		submit(t, ctx, "document.querySelector('form.signout button').click()")
		waitFor(t, ctx, "location.pathname === '/sign-in'")
	}
	// Each organization's owner makes a site and invites ed@example.com.
	invite := func(key, site string) string {
		signInKey(key)
		fill(t, ctx, map[string]string{"#site-name": site, "#site-url": "https://" + strings.ToLower(strings.Fields(site)[0]) + ".example/"})
		submit(t, ctx, "document.querySelector('form[action=\"/sites\"] button').click()")
		waitFor(t, ctx, "/^\\/sites\\/[0-9a-f-]{36}$/.test(location.pathname)")
		navigate(t, ctx, base+"/members")
		fill(t, ctx, map[string]string{"#invite-email": "ed@example.com"})
		eval(t, ctx, "document.querySelector('#invite-role').value = 'editor'", nil)
		submit(t, ctx, "document.querySelector('form[action=\"/members/invite\"] button').click()")
		var link string
		eval(t, ctx, "document.querySelector('#invite-link').textContent", &link)
		signOut()
		return link
	}
	first := invite(apiKey, "Field Notes")
	other := invite(secondKey, "Harbour Shop")

	// Ed joins the first organization: one membership, no switcher.
	joinInBrowser(t, ctx, first, "Ed Editor", "a long enough password")
	var switchers int
	eval(t, ctx, "document.querySelectorAll('form[action=\"/switch\"]').length", &switchers)
	if switchers != 0 {
		t.Fatalf("a member of one organization sees %d switchers", switchers)
	}
	signOut()

	// Ed joins the second with the same account; that session is in the second organization.
	// (signed out: the invitation page sends an account's holder to the sign-in first).
	navigate(t, ctx, other)
	submit(t, ctx, "document.querySelector('section[aria-labelledby=\"have-h\"] a').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	signInToJoin(t, ctx, "a long enough password")
	mustContain(t, ctx, "Harbour Shop")
	if strings.Contains(text(t, ctx), "Field Notes") {
		t.Fatal("the second organization's sites list shows the first's site")
	}
	var options []string
	eval(t, ctx, "[].map.call(document.querySelectorAll('header form[action=\"/switch\"] select option'), function (o) { return o.textContent + (o.selected ? ' *' : ''); })", &options)
	if len(options) != 2 || !strings.Contains(strings.Join(options, "|"), "Harbour Co (editor) *") {
		t.Fatalf("switcher options %q", options)
	}
	var label string
	eval(t, ctx, "document.querySelector('label[for=switch-org]').textContent", &label)
	if label != "Organization" {
		t.Fatalf("switcher label %q", label)
	}
	// The header is dark; the select's text must not inherit its white.
	var colors []string
	eval(t, ctx, "(function (s) { var c = getComputedStyle(s); return [c.color, c.backgroundColor]; })(document.querySelector('#switch-org'))", &colors)
	if len(colors) != 2 || colors[0] == colors[1] || colors[0] == "rgb(255, 255, 255)" {
		t.Fatalf("the switcher's text is %v on its background", colors)
	}
	checkPage(t, ctx, base, "o01-switcher-harbour")

	// Ed switches to the first organization and sees its sites only.
	eval(t, ctx, "var s = document.querySelector('#switch-org'); s.value = [].filter.call(s.options, function (o) { return !o.selected; })[0].value", nil)
	submit(t, ctx, "document.querySelector('form[action=\"/switch\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	mustContain(t, ctx, "Field Notes")
	if strings.Contains(text(t, ctx), "Harbour Shop") {
		t.Fatal("after switching, the sites list still shows the second organization's site")
	}
	var current string
	eval(t, ctx, "document.querySelector('#switch-org').selectedOptions[0].textContent", &current)
	if strings.Contains(current, "Harbour Co") {
		t.Fatalf("after switching the switcher still selects %q", current)
	}
	checkPage(t, ctx, base, "o02-switched")
}
