package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/watch"
	"github.com/consentd/consentd/library"
)

// queues are test doubles of core.ScanQueue and core.WebhookQueue: they accept every job.
type queues struct{}

func (*queues) EnqueueScan(context.Context, scan.Store, scan.ScanJob) error     { return nil }
func (*queues) EnqueueDelivery(context.Context, event.EventStore, string) error { return nil }

// formCase is how TestAuditEveryForm submits one of the console's POST routes.
type formCase struct {
	// prepare makes what the form acts on and returns the form's path (the route with its
	// parameters), the page it is on ("": post the values alone) and the values to send
	// (over the page form's own). client, when not nil, submits it instead of the owner.
	prepare func(t *testing.T) (path, page string, values url.Values, client *http.Client)
	// action is the audit action the form must record.
	action string
	// actor, when set, checks the entry's actor instead of "the signed-in owner".
	actor func(e *core.AuditEntry) bool
}

// formsNotAudited are the console's POST routes that change nothing an organization owns, and why.
var formsNotAudited = map[string]string{
	"POST /sign-in": "authentication: opens a session for the person (their failures count toward the sign-in limit); the sessions " +
		"it opens are listed on /sessions, where ending one is audited (session.revoke)",
	"POST /sign-out":                  "ends the caller's own session: changes nothing of the organization",
	"POST /switch":                    "moves the caller's own session to another of their organizations: changes none of them",
	"POST /sites/{id}/banner/preview": "renders the banner being edited for the preview frame: saves nothing",
}

// TestAuditEveryForm: every POST route of the console's router, submitted with valid values by
// a signed-in owner (or, for the invitation and the password reset, by the person the link is
// for), adds an audit entry of its action naming who acted and what changed, and the audit log
// holds none of the secrets the forms carried or showed (passwords, authenticator secrets and
// recovery codes, API keys, webhook secrets, the SSO client secret, link tokens). A route with
// neither a case nor a reason in formsNotAudited fails the test.
func TestAuditEveryForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	store := memstore.New()
	q := &queues{}
	uc, err := usecases.New(usecases.Deps{Store: store, Catalog: cat, Now: clk.now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() },
		Queue: q, WebhookQueue: q})
	if err != nil {
		t.Fatal(err)
	}
	sys := core.WithActor(ctx, core.System("test"))
	if _, err := uc.Orgs.Bootstrap(sys, unitKey); err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{UseCases: console.FromCore(uc), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	w := &unitWorld{srv: srv, clock: clk, uc: uc}

	key, err := uc.Orgs.AuthenticateKey(ctx, unitKey)
	if err != nil {
		t.Fatal(err)
	}
	org := key.OrgID
	const ownerPassword = "owner password 4711 long enough"
	owner, err := uc.Users.CreateMember(sys, org, "olga@example.com", "Olga", ownerPassword, core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	ownerActor, err := uc.Users.UserActor(ctx, owner.ID, org)
	if err != nil {
		t.Fatal(err)
	}
	asOwner := core.WithActor(ctx, ownerActor)
	secrets := map[string]bool{unitKey: true, ownerPassword: true}

	totpCode := func(t *testing.T, secret string) string {
		clk.advance(31 * time.Second) // a code is taken once: the next one
		c, err := identity.TOTPCode(secret, clk.now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ownerTOTP := "" // the owner's authenticator secret while it is on
	signIn := func(t *testing.T, email, password string) *http.Client {
		c := w.client(t)
		_, html := get(t, c, srv.URL+"/sign-in")
		res, body := post(t, c, srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {email}, "password": {password}})
		if res.StatusCode == http.StatusOK && strings.Contains(body, "Enter your code") && email == "olga@example.com" && ownerTOTP != "" {
			res, body = post(t, c, srv.URL+"/sign-in", url.Values{"csrf": {token(t, body)}, "step": {"code"}, "code": {totpCode(t, ownerTOTP)}})
		}
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in as %s: %d %.500s", email, res.StatusCode, body)
		}
		return c
	}
	oc := signIn(t, "olga@example.com", ownerPassword)

	// What the forms act on, made through core as the owner.
	newSite := func(t *testing.T) string {
		s, err := uc.Sites.CreateSite(asOwner, org, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	site := newSite(t)
	category := func(t *testing.T, slug string) string {
		cs, err := uc.Categories.Categories(asOwner, org, site)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Slug == slug {
				return c.ID
			}
		}
		t.Fatalf("no category %s", slug)
		return ""
	}
	newService := func(t *testing.T, slug string) string {
		r, err := uc.Services.CreateService(asOwner, org, site, banner.ServiceInput{Slug: slug, Label: "Spare", CategorySlug: "marketing"})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	plantScan := func(t *testing.T, found ...core.DetectedService) string {
		now := clk.now()
		sc := &scan.Scan{ID: uuid.NewString(), SiteID: site, URL: "https://shop.example", URLs: []string{"https://shop.example"},
			Status: scan.ScanPending, Mode: core.ScanStatic, CreatedAt: now.Add(-time.Minute)}
		if err := store.CreateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		sc.Status, sc.FinishedAt, sc.DetectedServices = scan.ScanCompleted, &now, found
		if err := store.UpdateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		return sc.ID
	}
	newKey := func(t *testing.T) string {
		k, v, err := uc.Orgs.IssueAPIKey(asOwner, org, identity.APIKeyInput{Name: "spare", Role: core.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		secrets[v] = true
		return k.ID
	}
	newHook := func(t *testing.T) string {
		e, err := uc.Webhooks.CreateEndpoint(asOwner, org, watch.WebhookInput{URL: ptr("https://hooks.example/in"), Events: []string{event.EventScanFailed}})
		if err != nil {
			t.Fatal(err)
		}
		secrets[e.Secret] = true
		return e.ID
	}
	n := 0
	passwordChanger := ""
	newMember := func(t *testing.T, role core.Role) *identity.User {
		n++
		pw := "member password long enough " + string(rune('a'+n))
		u, err := uc.Users.CreateMember(sys, org, "m"+string(rune('a'+n))+"@example.com", "Member", pw, role)
		if err != nil {
			t.Fatal(err)
		}
		secrets[pw] = true
		return u
	}
	enableTOTP := func(t *testing.T, userID string) string {
		a, err := uc.Users.UserActor(ctx, userID, org)
		if err != nil {
			t.Fatal(err)
		}
		as := core.WithActor(ctx, a)
		setup, err := uc.Users.NewTOTP(as, userID, "")
		if err != nil {
			t.Fatal(err)
		}
		secrets[setup.Secret] = true
		codes, err := uc.Users.EnableTOTP(as, userID, setup.Secret, totpCode(t, setup.Secret))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codes {
			secrets[c] = true
		}
		return setup.Secret
	}
	ssoForm := url.Values{"issuer": {"https://login.acme.example/realms/acme"}, "clientId": {"consentd"},
		"clientSecret": {"sso-client-secret-4711"}, "allowedDomains": {"acme.example"}, "defaultRole": {"editor"}}
	secrets["sso-client-secret-4711"] = true
	isOwner := func(e *core.AuditEntry) bool {
		return e.ActorKind == core.ActorUser && e.ActorID == owner.ID && e.ActorName == ownerActor.Name
	}
	v := func(kv ...string) url.Values {
		out := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	var reset *identity.User

	cases := map[string]formCase{
		"POST /sites": {action: core.AuditSiteCreate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites", "", v("name", "Blog", "url", "https://blog.example"), nil
		}},
		"POST /sites/{id}": {action: core.AuditSiteUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site, "", v("name", "Shop EU", "url", "https://shop.example"), nil
		}},
		"POST /sites/{id}/delete": {action: core.AuditSiteDelete, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + newSite(t) + "/delete", "", nil, nil
		}},
		"POST /sites/{id}/blocking": {action: core.AuditScriptBlocking, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/blocking", "", v("enabled", "false"), nil
		}},
		"POST /sites/{id}/enforce": {action: core.AuditScanConfigure, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			plantScan(t, core.DetectedService{Slug: "youtube", Name: "YouTube", Category: "marketing", Pages: []string{"https://shop.example/videos"}})
			return "/sites/" + site + "/enforce", "", nil, nil
		}},
		"POST /sites/{id}/watch": {action: core.AuditSiteUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/watch", "", v("scanSchedule", "weekly", "verifySchedule", "off", "digestEmails", "dpo@shop.example"), nil
		}},
		"POST /sites/{id}/banner": {action: core.AuditBannerUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/banner", "/sites/" + site + "/banner", v("template", "modal"), nil
		}},
		"POST /sites/{id}/banner/tcf": {action: core.AuditBannerUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/banner/tcf", "", v("tcfAction", "save", "tcfCountry", "DE"), nil
		}},
		"POST /sites/{id}/banner/gpp": {action: core.AuditBannerUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/banner/gpp", "", v("gppEnabled", "on", "gppApproach", "state", "gppMspaMode", "opt-out"), nil
		}},
		"POST /sites/{id}/categories": {action: core.AuditCategoryCreate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/categories", "", v("name", "Social", "description", "embeds"), nil
		}},
		"POST /sites/{id}/categories/{cid}": {action: core.AuditCategoryUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/categories/" + category(t, "marketing"), "", v("name", "Ads", "description", "ads"), nil
		}},
		"POST /sites/{id}/categories/{cid}/move": {action: core.AuditCategoryUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/categories/" + category(t, "statistics") + "/move", "", v("direction", "down"), nil
		}},
		"POST /sites/{id}/categories/{cid}/delete": {action: core.AuditCategoryDelete, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			c, err := uc.Categories.CreateCategory(asOwner, org, site, banner.CategoryInput{Name: ptr("Spare")})
			if err != nil {
				t.Fatal(err)
			}
			return "/sites/" + site + "/categories/" + c.ID + "/delete", "", nil, nil
		}},
		"POST /sites/{id}/library/import": {action: core.AuditServiceImport, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/library/import", "", v("slug", "hotjar"), nil
		}},
		"POST /sites/{id}/services/new": {action: core.AuditServiceCreate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/services/new", "", v("slug", "my-tracker", "label", "My tracker", "categorySlug", "statistics",
				"cookies", "1", "cookie.0.name", "_mt", "cookie.0.duration", "1 year"), nil
		}},
		"POST /sites/{id}/services/{sid}": {action: core.AuditServiceUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			sid := newService(t, "edited")
			return "/sites/" + site + "/services/" + sid, "/sites/" + site + "/services/" + sid, v("label", "Edited label"), nil
		}},
		"POST /sites/{id}/services/{sid}/delete": {action: core.AuditServiceDelete, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/services/" + newService(t, "spare") + "/delete", "", nil, nil
		}},
		"POST /sites/{id}/scans": {action: core.AuditScanTrigger, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			secrets["storefront-password-4711"] = true
			return "/sites/" + site + "/scans", "", v("urls", "https://shop.example/shop", "storefrontPassword", "storefront-password-4711"), nil
		}},
		"POST /sites/{id}/scans/{scan}/configure": {action: core.AuditScanConfigure, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			sid := plantScan(t, core.DetectedService{Slug: "mixpanel", Name: "Mixpanel", Category: "statistics"})
			return "/sites/" + site + "/scans/" + sid + "/configure", "", nil, nil
		}},
		"POST /sites/{id}/consents/erase": {action: core.AuditVisitorErase, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/sites/" + site + "/consents/erase?visitor=alice", "", nil, nil
		}},
		"POST /sites/{id}/experiments/{eid}/{action}": {action: core.AuditExperimentStart, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			x, err := uc.Experiments.Create(asOwner, org, site, experiment.Draft{Name: "Short", Metric: experiment.MetricConsentRate, Regions: []string{"EU"},
				Variants: []experiment.Variant{{Key: "control", Weight: 50}, {Key: "short", Weight: 50, Patch: experiment.Patch{TextOverrides: map[string]string{"headline": "Cookies?"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			return "/sites/" + site + "/experiments/" + x.ID + "/start", "", nil, nil
		}},
		"POST /keys": {action: core.AuditKeyCreate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/keys", "", v("name", "ci", "role", "editor"), nil
		}},
		"POST /keys/{kid}/rotate": {action: core.AuditKeyRotate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/keys/" + newKey(t) + "/rotate", "", v("grace", "0"), nil
		}},
		"POST /keys/{kid}/revoke": {action: core.AuditKeyRevoke, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/keys/" + newKey(t) + "/revoke", "", nil, nil
		}},
		"POST /webhooks": {action: core.AuditWebhookCreate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/webhooks", "", v("url", "https://hooks.example/consents", "description", "CRM", "events", "consent.recorded"), nil
		}},
		"POST /webhooks/{wid}/test": {action: core.AuditWebhookTest, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/webhooks/" + newHook(t) + "/test", "", nil, nil
		}},
		"POST /webhooks/{wid}/delete": {action: core.AuditWebhookDelete, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/webhooks/" + newHook(t) + "/delete", "", nil, nil
		}},
		"POST /members/invite": {action: core.AuditMemberInvite, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/members/invite", "", v("email", "new@example.com", "role", "editor"), nil
		}},
		"POST /members/{uid}/role": {action: core.AuditMemberRole, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/members/" + newMember(t, core.RoleEditor).ID + "/role", "", v("role", "viewer"), nil
		}},
		"POST /members/{uid}/remove": {action: core.AuditMemberRemove, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/members/" + newMember(t, core.RoleEditor).ID + "/remove", "", nil, nil
		}},
		"POST /members/{uid}/totp-reset": {action: core.AuditUserTOTPReset, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			u := newMember(t, core.RoleEditor)
			enableTOTP(t, u.ID)
			return "/members/" + u.ID + "/totp-reset", "", nil, nil
		}},
		"POST /members/sso": {action: core.AuditSSOUpdate, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			return "/members/sso", "", ssoForm, nil
		}},
		"POST /members/sso/delete": {action: core.AuditSSODelete, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			if _, err := uc.Users.PutSSOConfig(asOwner, org, identity.SSOInput{Issuer: ssoForm.Get("issuer"), ClientID: "consentd",
				ClientSecret: ptr(ssoForm.Get("clientSecret")), AllowedDomains: []string{"acme.example"}, DefaultRole: core.RoleEditor}); err != nil {
				t.Fatal(err)
			}
			return "/members/sso/delete", "", nil, nil
		}},
		"POST /sessions/{sid}/revoke": {action: core.AuditSessionRevoke, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			other := signIn(t, "olga@example.com", ownerPassword)
			u, _ := url.Parse(srv.URL)
			for _, c := range other.Jar.Cookies(u) {
				if c.Name == "consentd_session" {
					return "/sessions/" + identity.SessionID(c.Value) + "/revoke", "", nil, nil
				}
			}
			t.Fatal("no session cookie")
			return "", "", nil, nil
		}},
		"POST /account/password": {action: core.AuditUserPasswordSet, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			u := newMember(t, core.RoleEditor)
			pw := "member password long enough " + string(rune('a'+n))
			secrets["a changed password long enough"] = true
			passwordChanger = u.ID
			return "/account/password", "/account", v("currentPassword", pw, "password", "a changed password long enough"), signIn(t, u.Email, pw)
		}, actor: func(e *core.AuditEntry) bool { return e.ActorID == passwordChanger }},
		"POST /account/totp": {action: core.AuditUserTOTPEnable, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			if ownerTOTP != "" {
				t.Fatal("the owner's authenticator is on already")
			}
			setup, err := uc.Users.NewTOTP(asOwner, owner.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			secrets[setup.Secret] = true
			ownerTOTP = setup.Secret
			return "/account/totp", "", v("secret", setup.Secret, "code", totpCode(t, setup.Secret)), nil
		}},
		"POST /account/totp/disable": {action: core.AuditUserTOTPDisable, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			if ownerTOTP == "" {
				ownerTOTP = enableTOTP(t, owner.ID)
			}
			code := totpCode(t, ownerTOTP)
			ownerTOTP = ""
			return "/account/totp/disable", "", v("code", code), nil
		}},
		"POST /account/totp/recovery": {action: core.AuditUserRecoveryNew, prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
			if ownerTOTP == "" {
				ownerTOTP = enableTOTP(t, owner.ID)
			}
			return "/account/totp/recovery", "", v("code", totpCode(t, ownerTOTP)), nil
		}},
		"POST /invite/{token}": {action: core.AuditMemberJoin,
			actor: func(e *core.AuditEntry) bool {
				joined, err := store.UserByEmail(ctx, "joiner@example.com")
				return err == nil && e.ActorKind == core.ActorUser && e.ActorID == joined.ID
			},
			prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
				tok, err := uc.Users.Invite(asOwner, org, "joiner@example.com", core.RoleEditor)
				if err != nil {
					t.Fatal(err)
				}
				secrets[tok] = true
				secrets["joiner password long enough"] = true
				return "/invite/" + tok, "/invite/" + tok, v("name", "Jo", "email", "joiner@example.com", "password", "joiner password long enough"), w.client(t)
			}},
		"POST /reset/{token}": {action: core.AuditUserPasswordSet,
			actor: func(e *core.AuditEntry) bool {
				return reset != nil && e.ActorKind == core.ActorUser && e.ActorID == reset.ID
			},
			prepare: func(t *testing.T) (string, string, url.Values, *http.Client) {
				reset = newMember(t, core.RoleViewer)
				tok, err := uc.Users.ResetLink(sys, reset.Email)
				if err != nil {
					t.Fatal(err)
				}
				secrets[tok] = true
				secrets["a new password long enough"] = true
				return "/reset/" + tok, "/reset/" + tok, v("password", "a new password long enough"), w.client(t)
			}},
	}

	var routes []string
	for _, p := range console.Patterns(h) {
		if strings.HasPrefix(p, "POST ") {
			routes = append(routes, p)
		}
	}
	sort.Strings(routes)
	if len(routes) < 30 {
		t.Fatalf("only %d POST routes in the console's router: the walk found too little", len(routes))
	}
	entries := func() []*core.AuditEntry {
		var out []*core.AuditEntry
		for cursor := ""; ; {
			p, err := uc.AuditLog.AuditEntries(asOwner, org, identity.AuditQuery{Limit: core.MaxAuditLimit}, cursor)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.Entries...)
			if cursor = p.NextCursor; cursor == "" {
				return out
			}
		}
	}
	head := func() int64 {
		rep, err := uc.AuditLog.VerifyAuditLog(asOwner, org)
		if err != nil || !rep.OK {
			t.Fatalf("audit chain: %+v %v", rep, err)
		}
		return rep.HeadSeq
	}
	shown := regexp.MustCompile(`\b(cd_[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=]{20,})`)
	covered := map[string]bool{}
	for _, route := range routes {
		t.Run(strings.TrimPrefix(route, "POST "), func(t *testing.T) {
			if why, ok := formsNotAudited[route]; ok {
				if _, also := cases[route]; also || why == "" {
					t.Fatalf("%s is both audited and not", route)
				}
				covered[route] = true
				return
			}
			c, ok := cases[route]
			if !ok {
				t.Fatalf("the console's form %s has no case in TestAuditEveryForm: add valid values and the audit action it records, "+
					"or, if it changes nothing an organization owns, a reason in formsNotAudited", route)
			}
			covered[route] = true
			path, page, values, client := c.prepare(t)
			if client == nil {
				client = oc
			}
			form := url.Values{}
			_, html := get(t, client, srv.URL+cmpOr(page, "/sites"))
			if page != "" {
				form = formValues(t, html, page, path)
			}
			for k, vs := range values {
				form[k] = vs
			}
			if form.Get("csrf") == "" {
				form.Set("csrf", token(t, html))
			}
			before := head()
			res, body := post(t, client, srv.URL+path, form)
			if res.StatusCode >= 400 {
				t.Fatalf("POST %s: %d %.1500s", path, res.StatusCode, body)
			}
			for _, s := range shown.FindAllString(body, -1) {
				secrets[s] = true
			}
			var mine, after []*core.AuditEntry
			for _, e := range entries() {
				if e.Seq > before {
					after = append(after, e)
					if e.Action == c.action {
						mine = append(mine, e)
					}
				}
			}
			if len(mine) == 0 {
				b, _ := json.Marshal(after)
				t.Fatalf("POST %s (%d): no %q entry after it: %s", path, res.StatusCode, c.action, b)
			}
			e := mine[len(mine)-1]
			actorOK := isOwner
			if c.actor != nil {
				actorOK = c.actor
			}
			if !actorOK(e) {
				t.Errorf("entry does not name the actor: %s/%s %q", e.ActorKind, e.ActorID, e.ActorName)
			}
			if len(e.Changes) == 0 && e.Target == "" {
				t.Errorf("entry names neither a target nor a change: %+v", e)
			}
		})
	}
	for r := range cases {
		if !covered[r] {
			t.Errorf("case %s names no route of the console", r)
		}
	}
	for r := range formsNotAudited {
		if !covered[r] {
			t.Errorf("formsNotAudited names %s, no route of the console", r)
		}
	}
	all, _ := json.Marshal(entries())
	if len(secrets) < 15 {
		t.Fatalf("only %d secrets collected: the walk saw too little", len(secrets))
	}
	for s := range secrets {
		if strings.Contains(string(all), s) {
			t.Errorf("the audit log holds a secret %.12s…", s)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// formValues is what a browser sends for the form of page posting to action, as it stands:
// its inputs' values, checked boxes, selected options and text areas; no submit button.
func formValues(t *testing.T, html, page, action string) url.Values {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	var form *goquery.Selection
	doc.Find("form").Each(func(_ int, f *goquery.Selection) {
		a := f.AttrOr("action", page) // a form without an action posts to its page
		a, _, _ = strings.Cut(a, "#")
		if a == action && strings.EqualFold(f.AttrOr("method", ""), "post") && form == nil {
			form = f
		}
	})
	if form == nil {
		t.Fatalf("no form posting to %s on the page", action)
	}
	out := url.Values{}
	form.Find("input, select, textarea").Each(func(_ int, el *goquery.Selection) {
		name, ok := el.Attr("name")
		if !ok || name == "" || el.AttrOr("disabled", "x") != "x" {
			return
		}
		switch goquery.NodeName(el) {
		case "textarea":
			out.Add(name, el.Text())
		case "select":
			opt := el.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = el.Find("option").First()
			}
			out.Add(name, opt.AttrOr("value", opt.Text()))
		default:
			switch typ := strings.ToLower(el.AttrOr("type", "text")); {
			case typ == "submit" || typ == "button" || typ == "image" || typ == "file":
			case typ == "checkbox" || typ == "radio":
				if _, on := el.Attr("checked"); on {
					out.Add(name, el.AttrOr("value", "on"))
				}
			default:
				out.Add(name, el.AttrOr("value", ""))
			}
		}
	})
	if slices.Contains([]string{"", "x"}, out.Get("csrf")) {
		out.Del("csrf")
	}
	return out
}
