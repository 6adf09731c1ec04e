package httpapi_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/verifier"
)

// TestVerifierHeaders: a request naming a place in Consentd-Verifier-Location is a visitor from
// that place only with a credential issued for the request's site that has not expired;
// without one, with a forged one or another site's, the answer is exactly what the same
// visitor gets without the headers. The verifier's answer is never cached for others.
func TestVerifierHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	otherID, otherPK := e.site()
	e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"regionRules": banner.RegionPresets()[0].RegionRules}), 200)
	issue := func(siteID, projectKey string, ttl time.Duration) string {
		t.Helper()
		tok, _, err := e.m.Verifiers.Issue(sysCtx, &core.Site{ID: siteID, ProjectKey: projectKey}, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	config := func(headers ...string) resp {
		t.Helper()
		return e.want(e.raw("GET", "/api/v1/public/"+pk+"/config?lang=en", "", "", append([]string{"X-Country", "FR"}, headers...)...), 200)
	}
	plain := config()
	if plain.obj(t)["rule"] != "regionRules[0]" {
		t.Fatalf("a French visitor's rule: %v", plain.obj(t)["rule"])
	}
	short := issue(id, pk, time.Second)
	for name, h := range map[string][]string{
		"no credential":       {verifier.LocationHeader, "US-CA"},
		"forged credential":   {verifier.Header, "cdv_forged", verifier.LocationHeader, "US-CA"},
		"another site's":      {verifier.Header, issue(otherID, otherPK, 0), verifier.LocationHeader, "US-CA"},
		"the token's hash":    {verifier.Header, verifier.TokenHash(short), verifier.LocationHeader, "US-CA"},
		"a place without one": {"Consentd-Verifier-Location", "unknown"},
	} {
		got := config(h...)
		if !bytes.Equal(got.body, plain.body) || got.header.Get("Cache-Control") != plain.header.Get("Cache-Control") {
			t.Errorf("%s: the answer changed:\n%s\n%s", name, got.body, plain.body)
		}
	}
	tok := issue(id, pk, 0)
	for place, rule := range map[string]string{"US-CA": "regionRules[1]", "unknown": "regionRules[2]", "JP": "regionRules[3]", "DE": "regionRules[0]"} {
		got := config(verifier.Header, tok, verifier.LocationHeader, place)
		if got.obj(t)["rule"] != rule {
			t.Errorf("verifier from %s: rule %v, want %s", place, got.obj(t)["rule"], rule)
		}
		if cc := got.header.Get("Cache-Control"); cc != "private, no-store" {
			t.Errorf("verifier from %s: Cache-Control %q", place, cc)
		}
	}
	// The loader (the first view's configuration) follows the same rule.
	loader := e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", "", "X-Country", "FR", verifier.Header, tok, verifier.LocationHeader, "US-CA"), 200)
	if !bytes.Contains(loader.body, []byte(`"rule":"regionRules[1]"`)) {
		t.Errorf("the verifier's loader is not the Californian's")
	}
	// A caller who may configure the site gets one over the API (consentd verify --api-key),
	// with one place per rule; another organization's key gets not_found.
	issued := e.want(e.do("POST", "/api/v1/sites/"+id+"/verifier-credential", nil), 201).obj(t)
	places, _ := issued["places"].([]any)
	if len(places) != 4 || places[1].(map[string]any)["behavior"] != "opt_out" || issued["expiresAt"] == nil {
		t.Fatalf("issued %v", issued)
	}
	us := places[1].(map[string]any)["location"].(string)
	if got := config(verifier.Header, issued["credential"].(string), verifier.LocationHeader, us); got.obj(t)["rule"] != "regionRules[1]" {
		t.Errorf("the API's credential from %s: rule %v", us, got.obj(t)["rule"])
	}
	e.want(e.do("POST", "/api/v1/sites/"+id+"/verifier-credential", nil, e.keyB), 404)
	// Expired: the short credential is worthless now.
	time.Sleep(1100 * time.Millisecond)
	if got := config(verifier.Header, short, verifier.LocationHeader, "US-CA"); !bytes.Equal(got.body, plain.body) {
		t.Errorf("an expired credential still names the place")
	}
}

// TestVerifierDecisionsLeaveNoTrace (SQLite and Postgres): decisions posted with the
// verifier's credential are answered 201 with a receipt, as a visitor's, and leave the site's
// records, chain, statistics and export exactly as they were; a visitor's decision after them
// is stored as usual.
func TestVerifierDecisionsLeaveNoTrace(t *testing.T) {
	t.Parallel()
	for name, newE := range map[string]func(*testing.T) *env{"sqlite": newEnv, "postgres": newPostgresEnv} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newE(t)
			id, pk := e.site()
			e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"regionRules": banner.RegionPresets()[0].RegionRules}), 200)
			post := func(headers ...string) {
				t.Helper()
				e.want(e.raw("POST", "/api/v1/public/"+pk+"/consent", "", `{"categories":{"statistics":true},"consentVersion":1,"pageUrl":"https://shop.example/"}`,
					append([]string{"X-Country", "FR", "Content-Type", "application/json"}, headers...)...), 201)
			}
			post()
			post("Sec-GPC", "1")
			// The statistics over a fixed window of days around now: their default window (the 30
			// days before now) moves on at midnight UTC, which a run of this test may cross.
			day := time.Now().UTC()
			stats := "/api/v1/sites/" + id + "/consent-stats?from=" + day.AddDate(0, 0, -1).Format(time.DateOnly) + "&to=" + day.AddDate(0, 0, 2).Format(time.DateOnly)
			snapshot := func() [4]string {
				t.Helper()
				base := "/api/v1/sites/" + id + "/consent-records"
				return [4]string{
					string(e.want(e.do("GET", base, nil), 200).body),
					string(e.want(e.do("GET", base+"/verify", nil), 200).body),
					string(e.want(e.do("GET", stats, nil), 200).body),
					string(e.want(e.do("GET", base+"/export", nil), 200).body),
				}
			}
			before := snapshot()
			tok, _, err := e.m.Verifiers.Issue(sysCtx, &core.Site{ID: id, ProjectKey: pk}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				place := []string{"FR", "US-CA", "unknown", "JP"}[i%4]
				post(verifier.Header, tok, verifier.LocationHeader, place)
				post(verifier.Header, tok, verifier.LocationHeader, place, "Sec-GPC", "1")
			}
			after := snapshot()
			for i, what := range []string{"records", "chain", "statistics", "export"} {
				if before[i] != after[i] {
					t.Errorf("%s changed:\n%s\n%s", what, before[i], after[i])
				}
			}
			post()
			if got := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records", nil), 200).obj(t)["total"]; got != float64(3) {
				t.Errorf("total after a visitor's decision: %v", got)
			}
		})
	}
}
