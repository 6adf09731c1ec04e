package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
)

// memEnv is the API on memstore, with two organizations, and the store for planting scans.
func memEnv(t *testing.T) (*env, usecases.Store) {
	t.Helper()
	store := memstore.New()
	m := memCore(t, store)
	srv := httptest.NewServer(httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	e := &env{t: t, srv: srv, m: m}
	for _, k := range []*string{&e.keyA, &e.keyB} {
		org, err := m.Orgs.CreateOrganization(sysCtx, "org")
		if err != nil {
			t.Fatal(err)
		}
		if _, *k, err = m.Orgs.CreateAPIKey(sysCtx, org.ID, "k", ""); err != nil {
			t.Fatal(err)
		}
	}
	return e, store
}

// findings returns the report's findings by rule ID.
func findings(t *testing.T, rep map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, f := range rep["findings"].([]any) {
		m := f.(map[string]any)
		requireKeys(t, m, "ruleId", "family", "severity", "title", "source", "fix", "detail", "evidence")
		out[m["ruleId"].(string)] = m
	}
	return out
}

func TestComplianceReport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) (*env, usecases.Store)
	}{
		{"memstore", memEnv},
		{"sqlite", func(t *testing.T) (*env, usecases.Store) { return newEnv(t), nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, store := tc.env(t)
			id, _ := e.site()
			path := "/api/v1/sites/" + id + "/compliance"
			e.want(e.do("GET", path, nil, e.keyB), 404, "not_found")
			e.want(e.do("GET", "/api/v1/sites/"+uuid.NewString()+"/compliance", nil), 404, "not_found")
			e.want(e.do("GET", "/api/v1/sites/not-a-uuid/compliance", nil), 404, "not_found")
			e.want(e.raw("GET", path, "", ""), 401, "unauthorized")

			e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"defaultBehavior": "opt_out"}), 200)
			rep := e.want(e.do("GET", path, nil), 200).obj(t)
			requireKeys(t, rep, "siteId", "generatedAt", "verificationScanId", "verifiedAt", "verdict", "compliant", "findings", "summary")
			fs := findings(t, rep)
			f, ok := fs["consent.opt-out-eu"]
			// A configuration error before any scan: listed to fix, the verdict unverified.
			if rep["compliant"] != false || rep["verdict"] != "unverified" || rep["siteId"] != id || rep["verificationScanId"] != nil || !ok || f["severity"] != "error" {
				t.Fatalf("report of an opt-out banner: %v", rep)
			}
			ev := f["evidence"].(map[string]any)
			if ev["field"] != "banner.defaultBehavior" || ev["value"] != "opt_out" || ev["scanId"] != nil {
				t.Fatalf("evidence %v", ev)
			}
			if len(rep["summary"].([]any)) != 4 {
				t.Fatalf("summary %v", rep["summary"])
			}
			if store == nil {
				return
			}
			// A completed verification scan's observations are judged too.
			fin := time.Now().UTC()
			sc := &scan.Scan{ID: uuid.NewString(), SiteID: id, URL: "https://shop.example", URLs: []string{"https://shop.example"},
				Status: scan.ScanPending, Mode: core.ScanVerify, CreatedAt: fin.Add(-time.Minute)}
			ctx := context.Background()
			if err := store.CreateScan(ctx, sc); err != nil {
				t.Fatal(err)
			}
			sc.Status, sc.FinishedAt = scan.ScanCompleted, &fin
			sc.Verification = &core.Verification{Banner: core.BannerConsentd, ConsentModeDefault: true, States: []core.VerifiedState{{
				State: core.StateRejectAll, Pages: []string{"https://shop.example/"},
				Cookies: []core.VerifiedStorage{{Kind: core.StorageCookie, Name: "_fbp", Domain: "shop.example", Page: "https://shop.example/", Service: "facebook-pixel", Category: "marketing"}},
			}}}
			if err := store.UpdateScan(ctx, sc); err != nil {
				t.Fatal(err)
			}
			rep = e.want(e.do("GET", path, nil), 200).obj(t)
			f, ok = findings(t, rep)["enforcement.after-reject"]
			if rep["verificationScanId"] != sc.ID || rep["verifiedAt"] == nil || !ok || rep["verdict"] != "not_compliant" || f["evidence"].(map[string]any)["cookie"] != "_fbp (shop.example)" {
				t.Fatalf("report with a verification scan: %v", rep)
			}
		})
	}
}

// TestVerdictEnumIsCore: the OpenAPI enum of the report's verdict is core's list.
func TestVerdictEnumIsCore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Components.Schemas["ComplianceReport"].Properties["verdict"].Enum; !slices.Equal(got, scan.Verdicts()) {
		t.Fatalf("verdict enum %v, want %v", got, scan.Verdicts())
	}
}

// TestComplianceVerdict: GET /compliance on a new site is unverified; after a completed scan
// that found YouTube, which no rule holds back, it is not_compliant naming YouTube (Google
// Analytics, held by a built-in rule, is not named); after configuring the found service and
// a passing verification, compliant.
func TestComplianceVerdict(t *testing.T) {
	t.Parallel()
	e, store := memEnv(t)
	id, _ := e.site()
	path := "/api/v1/sites/" + id + "/compliance"
	if rep := e.want(e.do("GET", path, nil), 200).obj(t); rep["verdict"] != "unverified" || rep["compliant"] != false {
		t.Fatalf("a new site: %v", rep)
	}
	ctx := context.Background()
	plant := func(mode string, found []core.DetectedService, v *core.Verification) string {
		t.Helper()
		fin := time.Now().UTC()
		sc := &scan.Scan{ID: uuid.NewString(), SiteID: id, URL: "https://shop.example", URLs: []string{"https://shop.example"},
			Status: scan.ScanPending, Mode: mode, CreatedAt: fin.Add(-time.Minute)}
		if err := store.CreateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		sc.Status, sc.FinishedAt, sc.DetectedServices, sc.Verification = scan.ScanCompleted, &fin, found, v
		if err := store.UpdateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		return sc.ID
	}
	page := "https://shop.example/"
	scanID := plant(core.ScanStatic, []core.DetectedService{
		{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics", Pages: []string{page}},
		{Slug: "youtube", Name: "YouTube", Category: "marketing", Pages: []string{page + "videos"}},
	}, nil)
	rep := e.want(e.do("GET", path, nil), 200).obj(t)
	f, ok := findings(t, rep)["enforcement.unheld-service"]
	if rep["verdict"] != "not_compliant" || !ok || f["severity"] != "error" || !strings.Contains(f["detail"].(string), "YouTube (marketing)") {
		t.Fatalf("after a scan that found YouTube: %v", rep)
	}
	ev := f["evidence"].(map[string]any)
	if ev["scanId"] != scanID || ev["service"] != "youtube" || ev["category"] != "marketing" || ev["page"] != page+"videos" {
		t.Fatalf("evidence %v", ev)
	}
	for _, x := range rep["findings"].([]any) {
		if x := x.(map[string]any); x["ruleId"] == "enforcement.unheld-service" && x["evidence"].(map[string]any)["service"] != "youtube" {
			t.Fatalf("a service the built-in rules hold is named: %v", x)
		}
	}
	e.want(e.do("POST", "/api/v1/sites/"+id+"/scans/"+scanID+"/configure", nil), 200)
	e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"privacyPolicyUrl": "https://shop.example/privacy"}), 200)
	if rep := e.want(e.do("GET", path, nil), 200).obj(t); rep["verdict"] != "unverified" {
		t.Fatalf("configured, not verified yet: %v", rep)
	}
	plant(core.ScanVerify, nil, &core.Verification{Banner: core.BannerConsentd, ConsentModeDefault: true, RejectOnFirstLayer: true, ReopenButton: true,
		States: []core.VerifiedState{{State: core.StateNoDecision, Pages: []string{page}}, {State: core.StateRejectAll, Pages: []string{page}}}})
	if rep := e.want(e.do("GET", path, nil), 200).obj(t); rep["verdict"] != "compliant" || rep["compliant"] != true {
		t.Fatalf("after a passing verification: %v", rep)
	}
}
