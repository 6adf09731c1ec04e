package console_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/watch"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// notPages are the console's GET routes that answer with something other than a page, and why.
var notPages = map[string]string{
	"GET /assets/{name...}":           "the console's scripts, styles and images",
	"GET /favicon.ico":                "a redirect to the icon",
	"GET /sites/{id}/consents/export": "a CSV or JSON download",
	"GET /sso/callback":               "the identity provider's return, which needs a sign-in in progress (sso_test.go)",
	"GET /sso/{org}/start":            "a redirect to the organization's identity provider (sso_test.go)",
}

// viewports are the screens every page must fit: a phone and a laptop.
var viewports = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}}

// shotPages are the pages photographed at every viewport (as the owner), to be looked at.
var shotPages = map[string]string{
	"GET /sites/{id}": "overview", "GET /sites/{id}/banner": "banner-editor", "GET /sites/{id}/scans": "scans",
	"GET /sites/{id}/scans/{scan}": "scan", "GET /sites/{id}/consents": "records", "GET /members": "members",
	"GET /audit": "audit-log", "GET /account": "account", "GET /sites": "sites", "GET /keys": "keys",
}

var routeParam = regexp.MustCompile(`\{([a-z]+)(\.\.\.)?\}`)

// TestEveryPageFitsEveryScreen visits every GET route of the console's router (so that a new
// page is covered without editing this test) at 390×844 and 1280×800, as an owner and as a
// viewer, with every kind of thing a page shows in the organization: the page is exactly as
// wide as the screen (document scrollWidth equals the viewport's width), no navigation entry
// or heading is cut (scrollWidth ≤ clientWidth, nothing drawn past the screen's edge), the
// page passes axe-core and reports no Content-Security-Policy violation. The main pages are
// photographed at both sizes.
func TestEveryPageFitsEveryScreen(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	blog := blogSite(t)
	ctx := context.Background()
	uc := srv.app.UseCases()
	sys := core.WithActor(ctx, core.System("test"))
	key, err := uc.Orgs.AuthenticateKey(ctx, apiKey)
	if err != nil {
		t.Fatal(err)
	}
	org := key.OrgID
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const ownerPw, viewerPw = "owner password long enough", "viewer password long enough"
	owner, err := uc.Users.CreateMember(sys, org, "olga.owner-with-a-long-address@example.com", "Olga Owner", ownerPw, core.RoleOwner)
	must(err)
	viewer, err := uc.Users.CreateMember(sys, org, "vic@example.com", "Vic Viewer", viewerPw, core.RoleViewer)
	must(err)
	ownerActor, err := uc.Users.UserActor(ctx, owner.ID, org)
	must(err)
	as := core.WithActor(ctx, ownerActor)

	// One of everything a page lists, with long names where a name could push a page wide.
	s, err := uc.Sites.CreateSite(as, org, site.SiteInput{Name: ptr("Field Notes — the long-form journal of a travelling naturalist"), URL: ptr(blog)})
	must(err)
	_, err = uc.Services.ImportService(as, org, s.ID, "youtube", "")
	must(err)
	svc, err := uc.Services.CreateService(as, org, s.ID, banner.ServiceInput{Slug: "newsletter-signup-tracking-pixel", Label: "Newsletter sign-up tracking pixel", CategorySlug: "marketing"})
	must(err)
	cats, err := uc.Categories.Categories(as, org, s.ID)
	must(err)
	sc, err := uc.Scans.TriggerScan(as, org, s.ID, scan.ScanInput{URL: ptr(blog)})
	must(err)
	apiKeyRow, _, err := uc.Orgs.IssueAPIKey(as, org, identity.APIKeyInput{Name: "deploy pipeline of the marketing site", Role: core.RoleEditor})
	must(err)
	hook, err := uc.Webhooks.CreateEndpoint(as, org, watch.WebhookInput{URL: ptr("https://hooks.example/consentd/incoming/a-rather-long-path/0123456789abcdef"), Events: []string{event.EventScanFailed}})
	must(err)
	invite, err := uc.Users.Invite(as, org, "new.colleague@example.com", core.RoleEditor)
	must(err)
	reset, err := uc.Users.ResetLink(sys, "vic@example.com")
	must(err)
	for i, c := range []string{"DE", "US", "FR"} {
		postConsent(t, srv.base, s.ProjectKey, fmt.Sprintf("visitor-%d-0123456789abcdef0123456789abcdef", i), map[string]bool{"statistics": i%2 == 0, "marketing": true}, c)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := uc.Scans.Scan(as, org, s.ID, sc.ID)
		must(err)
		if got.Status == scan.ScanCompleted || got.Status == scan.ScanFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scan did not finish: %s", got.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	x, err := uc.Experiments.Create(as, org, s.ID, experiment.Draft{Name: "A much shorter headline for visitors on small screens", Metric: experiment.MetricConsentRate,
		Regions: []string{"EU"}, Variants: []experiment.Variant{{Key: "control", Name: "The banner as it is today", Weight: 50},
			{Key: "short", Name: "The banner with a much shorter headline", Weight: 50, Patch: experiment.Patch{TextOverrides: map[string]string{"headline": "Cookies?"}}}}})
	must(err)
	params := map[string]string{"id": s.ID, "cid": cats[len(cats)-1].ID, "sid": svc.ID, "scan": sc.ID, "kid": apiKeyRow.ID,
		"wid": hook.ID, "org": org, "token": invite, "uid": viewer.ID, "eid": x.ID}
	perRoute := map[string]map[string]string{"GET /reset/{token}": {"token": reset}}

	h, err := console.New(console.Config{})
	must(err)
	var routes []string
	seen := map[string]bool{}
	for _, p := range console.Patterns(h) {
		seen[p] = true
		if !strings.HasPrefix(p, "GET ") {
			continue
		}
		if _, skip := notPages[p]; skip {
			continue
		}
		routes = append(routes, p)
	}
	for p := range notPages {
		if !seen[p] {
			t.Errorf("notPages names %q, which the router does not have", p)
		}
	}
	sort.Strings(routes)
	if len(routes) < 25 {
		t.Fatalf("only %d GET routes in the console's router: the walk found too little", len(routes))
	}
	path := func(t *testing.T, pattern string) string {
		p := strings.TrimPrefix(pattern, "GET ")
		p = strings.TrimSuffix(p, "{$}")
		return routeParam.ReplaceAllStringFunc(p, func(m string) string {
			name := routeParam.FindStringSubmatch(m)[1]
			if v, ok := perRoute[pattern][name]; ok {
				return v
			}
			v, ok := params[name]
			if !ok {
				t.Fatalf("route %s has a parameter {%s} this test has no value for: add one to params", pattern, name)
			}
			return v
		})
	}

	for _, who := range []struct{ name, email, password string }{
		{"owner", owner.Email, ownerPw}, {"viewer", "vic@example.com", viewerPw}, {"anonymous", "", ""}} {
		// One person after the other: a tab at a time keeps the other browser tests of the
		// package (run in parallel with this one) within their patience.
		t.Run(who.name, func(t *testing.T) {
			// Every page this tab loads is checked with axe-core: it starts with each document.
			tc := chrome.Tab(t, 4*time.Minute, browsertest.AxePreload)
			if who.email != "" {
				navigate(t, tc, srv.base+"/sign-in")
				fill(t, tc, map[string]string{"#email": who.email, "#password": who.password})
				submit(t, tc, "document.querySelector('form[aria-labelledby=\"pw-h\"] button').click()")
				waitFor(t, tc, "location.pathname === '/sites'")
			}
			for _, vp := range viewports {
				var opts []chromedp.EmulateViewportOption
				if vp.mobile {
					opts = append(opts, chromedp.EmulateMobile)
				}
				run(t, tc, chromedp.EmulateViewport(vp.width, vp.height, opts...))
				checked := map[string]bool{}
				for _, route := range routes {
					u := srv.base + path(t, route)
					_, shot := shotPages[route]
					if !shot {
						// Where the route lands, its redirects followed, asked by a fetch with
						// the tab's cookies: most routes, for someone signed out, land on the
						// sign-in page, checked once already. A fetch costs the tab no
						// document to lay out and no axe-core to parse. A server's redirect
						// lands the same for both.
						var lands string
						eval(t, tc, `fetch(`+jsString(u)+`, {credentials: 'same-origin'}).then(function (r) { return new URL(r.url).pathname; })`, &lands)
						if checked[lands] {
							continue
						}
					}
					navigate(t, tc, u)
					var landed string
					eval(t, tc, "location.pathname", &landed)
					if checked[landed] && !shot {
						continue // a redirect to a page already checked (the sign-in page, the sites)
					}
					checked[landed] = true
					what := fmt.Sprintf("%s as %s on a %s (%s)", route, who.name, vp.name, landed)
					checkFits(t, tc, what, vp.width)
					checkLoaded(t, tc, srv.base, what)
					if shot && who.name == "owner" {
						screenshot(t, tc, vp.name+"-"+shotPages[route])
					}
				}
			}
		})
	}
}

// checkFits fails when the page is wider than the screen, or a navigation entry or heading is
// cut or drawn past the screen's edge.
func checkFits(t *testing.T, ctx context.Context, what string, width int64) {
	t.Helper()
	var got struct {
		ScrollWidth int64    `json:"scrollWidth"`
		Cut         []string `json:"cut"`
		Wide        []string `json:"wide"`
	}
	eval(t, ctx, `(function () {
  var vw = document.documentElement.clientWidth, cut = [];
  document.querySelectorAll('header, header *, nav, nav *, h1, h2, h3, legend, .tabs, .tabs *').forEach(function (e) {
    var cs = getComputedStyle(e), r = e.getBoundingClientRect();
    if (cs.display === 'none' || cs.visibility === 'hidden' || r.width === 0 || e.closest('.sr-only, .skip, [hidden]')) return;
    var name = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' “' + (e.textContent || '').trim().slice(0, 30) + '”';
    if (cs.display !== 'inline' && e.scrollWidth > e.clientWidth + 1) cut.push(name + ': scrollWidth ' + e.scrollWidth + ' > clientWidth ' + e.clientWidth);
    else if (r.right > vw + 1 || r.left < -1) cut.push(name + ': drawn from ' + Math.round(r.left) + ' to ' + Math.round(r.right) + ' on a ' + vw + ' px screen');
  });
  // What makes a page too wide: the innermost elements that reach past the screen's edge.
  var wide = [];
  if (document.documentElement.scrollWidth > vw) document.querySelectorAll('body *').forEach(function (e) {
    if (e.getBoundingClientRect().right <= vw + 1 || e.parentElement.closest('.table-wrap, .code') || e.closest('.skip')) return;
    if (!e.matches('.table-wrap, .code') && [].some.call(e.children, function (c) { return c.getBoundingClientRect().right > vw + 1; })) return;
    if (wide.length < 8) wide.push(e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' “' + (e.textContent || '').trim().slice(0, 40) + '” to ' + Math.round(e.getBoundingClientRect().right));
  });
  return {scrollWidth: document.documentElement.scrollWidth, cut: cut, wide: wide};
})()`, &got)
	if got.ScrollWidth != width {
		t.Errorf("%s: the page is %d px wide on a %d px screen; past the edge:\n  %s", what, got.ScrollWidth, width, strings.Join(got.Wide, "\n  "))
	}
	if len(got.Cut) > 0 {
		t.Errorf("%s: cut or off the screen:\n  %s", what, strings.Join(got.Cut, "\n  "))
	}
}
