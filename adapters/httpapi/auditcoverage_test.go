package httpapi_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// deliveryQueue is a test double of core.WebhookQueue: it keeps the deliveries it was given.
type deliveryQueue struct {
	mu  sync.Mutex
	ids []string
}

func (q *deliveryQueue) EnqueueDelivery(_ context.Context, _ event.EventStore, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, id)
	return nil
}

// auditCase is how TestAuditEveryChange makes one state-changing operation of the document.
type auditCase struct {
	// prepare makes what the operation needs and returns its path parameters and body (nil:
	// none). It runs before the audit log's head is read.
	prepare func(t *testing.T) (params map[string]string, body any)
	// action is the audit action the operation must record.
	action string
	// fields are the changes the entry must name (nil: the body's top-level fields for PUT and
	// PATCH, any one change for the rest).
	fields []string
	// actor, when set, checks the entry's actor instead of "the calling key".
	actor func(e *core.AuditEntry) bool
}

// notAudited are the state-changing operations of the document that record no audit entry,
// and why. An operation is either here or in the cases of TestAuditEveryChange.
var notAudited = map[string]string{
	"recordConsent": "a visitor's consent on a site's banner (public, no key): it is proof kept in the site's own hash " +
		"chain of consent records (GET /sites/{id}/consent-records/verify), not a change of the organization's configuration " +
		"by a key or a member",
	"recordEvents": "a visitor's page view adding to the site's analytics counters (public, no key): no configuration of the " +
		"organization changes, and nothing is stored per event (docs/analytics.md)",
}

// secretField names the JSON fields whose string values are credentials: they must never reach
// the audit log.
var secretField = regexp.MustCompile(`(?i)(secret|password|^key$|token)`)

// collectSecrets adds the credentials in v (a decoded JSON value) to into.
func collectSecrets(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && secretField.MatchString(k) && len(s) >= 8 {
				into[s] = true
			}
			collectSecrets(val, into)
		}
	case []any:
		for _, val := range x {
			collectSecrets(val, into)
		}
	}
}

// TestAuditEveryChange: every state-changing operation (POST, PUT, PATCH, DELETE) of the served
// OpenAPI document, made with a valid request by an owner key, adds an audit entry of its action
// naming the key and what changed, and no entry holds a secret (webhook secrets, API keys, the
// SSO client secret, storefront passwords, digest unsubscribe tokens). An operation that appears
// in the document without a case here, or without a reason in notAudited, fails the test.
func TestAuditEveryChange(t *testing.T) {
	t.Parallel()
	hooks := &deliveryQueue{}
	e := newEnvDeps(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"), []byte("/* runtime */"),
		func(d *usecases.Deps) { d.WebhookQueue = hooks })
	ctx := context.Background()
	me, err := e.m.Orgs.AuthenticateKey(ctx, e.keyA)
	if err != nil {
		t.Fatal(err)
	}
	as := core.WithActor(ctx, me)
	secrets := map[string]bool{e.keyA: true, e.keyB: true}

	// Helpers that make what an operation acts on, through the API as the same key.
	newSite := func(t *testing.T) string {
		s := e.want(e.do("POST", "/api/v1/sites", map[string]any{"name": "Shop", "url": "https://shop.example"}), 201).obj(t)
		return s["id"].(string)
	}
	site := newSite(t)
	newKey := func(t *testing.T) string {
		k := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": "spare", "role": "viewer"}), 201).obj(t)
		collectSecrets(k, secrets)
		return k["id"].(string)
	}
	newHook := func(t *testing.T) string {
		h := e.want(e.do("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example/in", "events": []string{"scan.failed"}}), 201).obj(t)
		collectSecrets(h, secrets)
		return h["id"].(string)
	}
	newExperiment := func(t *testing.T, site string, start bool) string {
		x := e.want(e.do("POST", "/api/v1/sites/"+site+"/experiments", baseBodies["POST /sites/{id}/experiments"]), 201).obj(t)["id"].(string)
		if start {
			e.want(e.do("POST", "/api/v1/sites/"+site+"/experiments/"+x+"/start", nil), 200)
		}
		return x
	}
	ssoBody := map[string]any{"issuer": "https://login.acme.example/realms/acme", "clientId": "consentd",
		"clientSecret": "sso-client-secret-4711", "allowedDomains": []string{"acme.example"}, "defaultRole": "editor"}
	isKey := func(a *core.AuditEntry) bool {
		return a.ActorKind == core.ActorKey && a.ActorID == me.ID && a.ActorName == me.Name
	}

	cases := map[string]auditCase{
		"createSite": {action: core.AuditSiteCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return nil, map[string]any{"name": "Blog", "url": "https://blog.example"}
		}},
		"updateSite": {action: core.AuditSiteUpdate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"name": "Shop EU", "consentRetentionDays": 400,
				"scanSchedule": "weekly", "digestEmails": []string{"dpo@shop.example"}}
		}},
		"deleteSite": {action: core.AuditSiteDelete, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newSite(t)}, nil
		}},
		"updateBanner": {action: core.AuditBannerUpdate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"template": "modal", "cookieExpirationDays": 180}
		}},
		"setScriptBlocking": {action: core.AuditScriptBlocking, fields: []string{"blockingRules"}, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"enabled": false}
		}},
		"createCategory": {action: core.AuditCategoryCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"name": "Social"}
		}},
		"updateCategory": {action: core.AuditCategoryUpdate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site, "catId": e.categoryID(site, "marketing")}, map[string]any{"name": "Ads", "sortOrder": 7}
		}},
		"deleteCategory": {action: core.AuditCategoryDelete, prepare: func(t *testing.T) (map[string]string, any) {
			c := e.want(e.do("POST", "/api/v1/sites/"+site+"/categories", map[string]any{"name": "Spare"}), 201).obj(t)
			return map[string]string{"id": site, "catId": c["id"].(string)}, nil
		}},
		"createService": {action: core.AuditServiceCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"slug": "my-tracker", "label": "My tracker", "categorySlug": "statistics",
				"cookies": []map[string]any{{"name": "_mt", "duration": "1 year"}}}
		}},
		"importService": {action: core.AuditServiceImport, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"slug": "hotjar"}
		}},
		"deleteService": {action: core.AuditServiceDelete, prepare: func(t *testing.T) (map[string]string, any) {
			r := e.want(e.do("POST", "/api/v1/sites/"+site+"/services", map[string]any{"slug": "spare", "label": "Spare", "categorySlug": "marketing"}), 201).obj(t)
			return map[string]string{"id": site, "serviceId": r["service"].(map[string]any)["id"].(string)}, nil
		}},
		"issueVerifierCredential": {action: core.AuditVerifierIssue, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, nil
		}},
		"triggerScan": {action: core.AuditScanTrigger, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, map[string]any{"url": "https://shop.example/shop", "storefrontPassword": "storefront-password-4711"}
		}},
		"configureScan": {action: core.AuditScanConfigure, prepare: func(t *testing.T) (map[string]string, any) {
			s := e.want(e.do("POST", "/api/v1/sites/"+site+"/scan", nil), 201).obj(t)
			sid := s["id"].(string)
			if _, err := e.m.ScanWorker.StartScan(sysCtx, sid); err != nil {
				t.Fatal(err)
			}
			if err := e.m.ScanWorker.CompleteScan(sysCtx, sid, &core.CrawlResult{PagesScanned: 1,
				DetectedServices: []core.DetectedService{{Slug: "mixpanel", Name: "Mixpanel", Category: "statistics"}}}); err != nil {
				t.Fatal(err)
			}
			return map[string]string{"id": site, "scanId": sid}, nil
		}},
		"eraseVisitor": {action: core.AuditVisitorErase, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site, "visitorId": "alice"}, nil
		}},
		"createApiKey": {action: core.AuditKeyCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return nil, map[string]any{"name": "ci", "role": "editor", "siteIds": []string{site}}
		}},
		"rotateApiKey": {action: core.AuditKeyRotate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newKey(t)}, nil
		}},
		"revokeApiKey": {action: core.AuditKeyRevoke, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newKey(t)}, nil
		}},
		"putSso": {action: core.AuditSSOUpdate, prepare: func(t *testing.T) (map[string]string, any) {
			return nil, ssoBody
		}},
		"deleteSso": {action: core.AuditSSODelete, prepare: func(t *testing.T) (map[string]string, any) {
			e.want(e.do("PUT", "/api/v1/sso", ssoBody), 200)
			return nil, nil
		}},
		"createWebhook": {action: core.AuditWebhookCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return nil, map[string]any{"url": "https://hooks.example/consents", "events": []string{"consent.recorded"}, "description": "CRM"}
		}},
		"updateWebhook": {action: core.AuditWebhookUpdate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newHook(t)}, map[string]any{"url": "https://hooks.example/other", "events": []string{"consent.recorded"},
				"description": "all consents", "enabled": false}
		}},
		"deleteWebhook": {action: core.AuditWebhookDelete, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newHook(t)}, nil
		}},
		"createExperiment": {action: core.AuditExperimentCreate, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": site}, baseBodies["POST /sites/{id}/experiments"]
		}},
		"startExperiment": {action: core.AuditExperimentStart, prepare: func(t *testing.T) (map[string]string, any) {
			s := newSite(t)
			return map[string]string{"id": s, "experimentId": newExperiment(t, s, false)}, nil
		}},
		"stopExperiment": {action: core.AuditExperimentStop, prepare: func(t *testing.T) (map[string]string, any) {
			s := newSite(t)
			return map[string]string{"id": s, "experimentId": newExperiment(t, s, true)}, nil
		}},
		"promoteExperiment": {action: core.AuditExperimentPromote, prepare: func(t *testing.T) (map[string]string, any) {
			s := newSite(t)
			return map[string]string{"id": s, "experimentId": newExperiment(t, s, true)}, map[string]any{"variant": "b"}
		}},
		"testWebhook": {action: core.AuditWebhookTest, prepare: func(t *testing.T) (map[string]string, any) {
			return map[string]string{"id": newHook(t)}, nil
		}},
		"redeliverWebhook": {action: core.AuditWebhookRedeliver, prepare: func(t *testing.T) (map[string]string, any) {
			id := newHook(t)
			d := e.want(e.do("POST", "/api/v1/webhooks/"+id+"/test", nil), 201).obj(t)
			return map[string]string{"id": id, "deliveryId": d["id"].(string)}, nil
		}},
		"unsubscribeDigestOneClick": {action: core.AuditSiteUpdate, fields: []string{"digestEmails"},
			actor: func(a *core.AuditEntry) bool {
				return a.ActorKind == core.ActorSystem && strings.Contains(a.ActorName, "unsub@shop.example")
			},
			prepare: func(t *testing.T) (map[string]string, any) {
				s := newSite(t)
				e.want(e.do("PATCH", "/api/v1/sites/"+s, map[string]any{"digestEmails": []string{"unsub@shop.example"}}), 200)
				got, err := e.m.Sites.Site(as, me.OrgID, s)
				if err != nil || len(got.DigestRecipients) != 1 {
					t.Fatalf("digest recipients: %v %v", got, err)
				}
				secrets[got.DigestRecipients[0].Token] = true
				return map[string]string{"token": got.DigestRecipients[0].Token}, nil
			}},
	}

	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	type operation struct{ id, method, path string }
	var ops []operation
	for p, item := range doc["paths"].(map[string]any) {
		for m, o := range item.(map[string]any) {
			op, ok := o.(map[string]any)
			m = strings.ToUpper(m)
			if !ok || !slices.Contains([]string{"POST", "PUT", "PATCH", "DELETE"}, m) {
				continue
			}
			ops = append(ops, operation{op["operationId"].(string), m, p})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	if len(ops) < 20 {
		t.Fatalf("only %d state-changing operations in the document: the walk found too little", len(ops))
	}
	head := func() int64 {
		rep := e.want(e.do("GET", "/api/v1/audit-log/verify", nil), 200).obj(t)
		if rep["ok"] != true {
			t.Fatalf("audit chain broken: %v", rep)
		}
		return int64(rep["headSeq"].(float64))
	}
	entriesAfter := func(seq int64) []*core.AuditEntry {
		var p identity.AuditPage
		if err := json.Unmarshal(e.want(e.do("GET", "/api/v1/audit-log?limit=100", nil), 200).body, &p); err != nil {
			t.Fatal(err)
		}
		var out []*core.AuditEntry
		for _, x := range p.Entries {
			if x.Seq > seq {
				out = append(out, x)
			}
		}
		return out
	}
	covered := map[string]bool{}
	for _, o := range ops {
		t.Run(o.id, func(t *testing.T) {
			if why, ok := notAudited[o.id]; ok {
				if _, also := cases[o.id]; also || why == "" {
					t.Fatalf("%s is both audited and not", o.id)
				}
				covered[o.id] = true
				return
			}
			c, ok := cases[o.id]
			if !ok {
				t.Fatalf("%s %s (%s) changes state but has no case in TestAuditEveryChange: add a valid request and the audit action "+
					"it records, or, if it changes nothing an organization owns, a reason in notAudited", o.method, o.path, o.id)
			}
			covered[o.id] = true
			params, body := c.prepare(t)
			path := "/api/v1" + o.path
			for k, v := range params {
				path = strings.ReplaceAll(path, "{"+k+"}", v)
			}
			if strings.Contains(path, "{") {
				t.Fatalf("path parameters left in %s", path)
			}
			if body != nil {
				b, _ := json.Marshal(body)
				var v any
				_ = json.Unmarshal(b, &v)
				collectSecrets(v, secrets)
			}
			before := head()
			r := e.do(o.method, path, body)
			if r.status < 200 || r.status > 299 {
				t.Fatalf("%s %s: %d %s", o.method, path, r.status, r.body)
			}
			var answer any
			if json.Unmarshal(r.body, &answer) == nil {
				collectSecrets(answer, secrets)
			}
			var mine []*core.AuditEntry
			for _, x := range entriesAfter(before) {
				if x.Action == c.action {
					mine = append(mine, x)
				}
			}
			if len(mine) != 1 {
				t.Fatalf("%s %s: %d %q entries after it (want 1): %s", o.method, path, len(mine), c.action, mustJSON(entriesAfter(before)))
			}
			x := mine[0]
			actorOK := isKey
			if c.actor != nil {
				actorOK = c.actor
			}
			if !actorOK(x) {
				t.Errorf("entry does not name the actor: %s/%s %q (the key is %s %q)", x.ActorKind, x.ActorID, x.ActorName, me.ID, me.Name)
			}
			var named []string
			for _, ch := range x.Changes {
				named = append(named, ch.Field)
			}
			want := c.fields
			if want == nil && (o.method == "PUT" || o.method == "PATCH") {
				for k := range body.(map[string]any) {
					want = append(want, k)
				}
			}
			for _, f := range want {
				if !slices.Contains(named, f) {
					t.Errorf("entry does not say what changed: no change of %q among %q", f, named)
				}
			}
			if len(named) == 0 && x.Target == "" {
				t.Errorf("entry names neither a target nor a change: %s", mustJSON(x))
			}
		})
	}
	for id := range cases {
		if !covered[id] {
			t.Errorf("case %s names no operation of the document", id)
		}
	}
	for id := range notAudited {
		if !covered[id] {
			t.Errorf("notAudited names %s, no operation of the document", id)
		}
	}
	// No secret anywhere in the log, whichever entry it would be in.
	var all []byte
	for cursor := ""; ; {
		var p identity.AuditPage
		b := e.want(e.do("GET", "/api/v1/audit-log?limit=100&cursor="+cursor, nil), 200).body
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(secrets) < 8 {
		t.Fatalf("only %d secrets collected: the walk saw too little", len(secrets))
	}
	for s := range secrets {
		if strings.Contains(string(all), s) {
			t.Errorf("the audit log holds a secret %.12s…", s)
		}
	}
}
