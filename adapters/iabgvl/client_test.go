package iabgvl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	sitepkg "github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// iabServer plays vendor-list.consensu.org: the GVL and a French translation, gzip-compressed
// when asked, with Cache-Control max-age and an ETag; every other translation is 403, as the
// IAB's storage answers. It plays Google's storage too, serving its Additional Consent provider
// list (acPath). It counts requests per path and records the conditional ones.
type iabServer struct {
	mu          sync.Mutex
	gvl         []byte
	ac          []byte
	requests    map[string]int
	conditional map[string]int
	status      atomic.Int32
	*httptest.Server
}

func newIABServer(t *testing.T, gvl []byte) *iabServer {
	s := &iabServer{gvl: gvl, requests: map[string]int{}, conditional: map[string]int{}}
	fr := []byte(`{"gvlSpecificationVersion":3,"vendorListVersion":17,"purposes":{"1":{"id":1,"name":"Stocker et/ou accéder à des informations sur un appareil","description":"fr","illustrations":[]}},"stacks":{},"dataCategories":{}}`)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		if r.Header.Get("If-None-Match") != "" {
			s.conditional[r.URL.Path]++
		}
		body, ac := s.gvl, s.ac
		s.mu.Unlock()
		if st := s.status.Load(); st != 0 {
			w.WriteHeader(int(st))
			return
		}
		switch r.URL.Path {
		case "/v3/vendor-list.json":
		case "/v3/purposes-fr.json":
			body = fr
		case acPath:
			body = ac
		default:
			w.WriteHeader(http.StatusForbidden)
			return
		}
		etag := fmt.Sprintf(`"%x-%d-%x"`, len(body), bytes.Count(body, []byte("vendorListVersion\":18")), crc32.ChecksumIEEE(body))
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("%s requested without Accept-Encoding gzip: %q", r.URL.Path, r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		gz.Write(body) //nolint:errcheck // the test reads what arrives
		gz.Close()     //nolint:errcheck // idem
	}))
	t.Cleanup(s.Close)
	return s
}

// acPath is where iabServer serves Google's provider list.
const acPath = "/tcfac/additional-consent-providers.csv"

func (s *iabServer) count(path string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path], s.conditional[path]
}

// TestRefreshFromIAB: the refresh fetches the GVL and its translations compressed, keeps them
// in the store, asks again only once Cache-Control's max-age has passed and then
// conditionally, stores a new version beside the old one, and fails (for its job to retry)
// when the IAB's server does.
func TestRefreshFromIAB(t *testing.T) {
	ctx := core.WithActor(context.Background(), core.System("tests"))
	v17, err := os.ReadFile("../../testdata/tcf/vendor-list-v17.json")
	must(t, err)
	srv := newIABServer(t, v17)
	acList, err := os.ReadFile("../../testdata/tcf/additional-consent-providers.csv")
	must(t, err)
	srv.ac = acList
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	cat, err := library.FromServices(nil)
	must(t, err)
	store := memstore.New()
	var n atomic.Int64
	m, err := usecases.New(usecases.Deps{Store: store, Catalog: cat, Now: now, NewID: func() string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n.Add(1)) },
		GVLSource: iabgvl.NewClient(srv.URL+"/v3/", srv.Client(), "consentd-test").WithACProvidersURL(srv.URL + acPath), TCF: tcf.TCFDeployment{CMPID: 4095, CMPVersion: 1}})
	must(t, err)

	r, err := m.TCF.RefreshGVL(ctx)
	must(t, err)
	if r.Version != 17 || len(r.Fetched) != len(tcf.GVLLanguages())+2 || strings.Join(r.Saved, ",") != "vendor-list,purposes-fr,google-ac-providers" {
		t.Fatalf("first refresh: %+v", r)
	}
	stored, err := store.StoredGVL(ctx, 17, "")
	must(t, err)
	if !bytes.Equal(stored.Body, v17) {
		t.Fatal("the stored GVL is not the published one byte for byte")
	}
	if stored, err = store.StoredGVL(ctx, 1, tcf.ACProvidersResource); err != nil || !bytes.Equal(stored.Body, acList) {
		t.Fatalf("Google's provider list is not stored as published: %v", err)
	}
	st, err := m.TCF.GVLStatus(ctx)
	if err != nil || st.Version != 17 || st.CMPID != 4095 || st.CheckedAt.IsZero() {
		t.Fatalf("GVL status: %+v %v", st, err)
	}

	// The runtime's configuration is built from the stored list and translation.
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	must(t, err)
	site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	must(t, err)
	// A Google provider not on the stored list is refused, naming the field.
	_, err = m.Banners.PatchBanner(ctx, org.ID, site.ID, banner.BannerPatch{TCF: &tcf.TCFSettings{Enabled: true, VendorIDs: []int{755, 1}, GoogleATPIDs: []int{89, 2}}})
	if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "tcf.googleAtpIds[1]: unknown provider 2") {
		t.Fatalf("a provider not on Google's list: %v", err)
	}
	_, err = m.Banners.PatchBanner(ctx, org.ID, site.ID, banner.BannerPatch{TCF: &tcf.TCFSettings{Enabled: true, VendorIDs: []int{755, 1}, GoogleATPIDs: []int{89, 39}}})
	must(t, err)
	cfg, err := m.PublicBanner.TCFConfig(ctx, site.ProjectKey, "fr")
	must(t, err)
	if cfg.Language != "fr" || cfg.VendorListVersion != 17 || !strings.HasPrefix(cfg.Purposes[1].Name, "Stocker") || len(cfg.Vendors) != 2 {
		t.Fatalf("TCF config from the store: language %q, version %d, purpose 1 %q", cfg.Language, cfg.VendorListVersion, cfg.Purposes[1].Name)
	}
	if p := cfg.GoogleATPs[89]; p.Name != "Facebook" || p.PolicyURL != "https://www.facebook.com/about/privacy/update" || cfg.GoogleATPs[39].Name != "Digilant" {
		t.Fatalf("Google providers in the TCF config: %+v", cfg.GoogleATPs)
	}

	// Fresh for an hour: nothing is asked.
	offset.Store(int64(30 * time.Minute))
	if r, err = m.TCF.RefreshGVL(ctx); err != nil || len(r.Fetched) != 0 {
		t.Fatalf("refresh within max-age: %+v %v", r, err)
	}
	if got, _ := srv.count("/v3/vendor-list.json"); got != 1 {
		t.Fatalf("the GVL was requested %d times within its max-age", got)
	}

	// Expired: asked again conditionally, unchanged, nothing new stored.
	offset.Store(int64(61 * time.Minute))
	if r, err = m.TCF.RefreshGVL(ctx); err != nil || len(r.Saved) != 0 || r.Version != 17 {
		t.Fatalf("refresh after max-age: %+v %v", r, err)
	}
	if got, cond := srv.count("/v3/vendor-list.json"); got != 2 || cond != 1 {
		t.Fatalf("after expiry: %d requests, %d conditional; want 2 and 1", got, cond)
	}

	// A new version is stored beside the old one and becomes current.
	srv.mu.Lock()
	srv.gvl = bytes.Replace(v17, []byte(`"vendorListVersion": 17`), []byte(`"vendorListVersion": 18`), 1)
	srv.gvl = bytes.Replace(srv.gvl, []byte(`"vendorListVersion":17`), []byte(`"vendorListVersion":18`), 1)
	srv.mu.Unlock()
	offset.Store(int64(125 * time.Minute))
	if r, err = m.TCF.RefreshGVL(ctx); err != nil || r.Version != 18 || !strings.Contains(strings.Join(r.Saved, ","), "vendor-list") {
		t.Fatalf("refresh with a new version: %+v %v", r, err)
	}
	if _, err := store.StoredGVL(ctx, 17, ""); err != nil {
		t.Fatalf("version 17 was not kept: %v", err)
	}
	if cfg, err = m.PublicBanner.TCFConfig(ctx, site.ProjectKey, "fr"); err != nil || cfg.VendorListVersion != 18 || cfg.Language != "fr" {
		t.Fatalf("TCF config after the new version: %+v %v", cfg, err)
	}

	// Google removes provider 89: the changed list is stored as version 2 beside the first, the
	// compliance report flags the site's provider, and the layers no longer name it.
	srv.mu.Lock()
	srv.ac = bytes.Replace(acList, []byte("89,\"Facebook\",\"https://www.facebook.com/about/privacy/update\",\"ad4.liverail.com atdmt.com cdn-secure.liverail.com cdn-static-secure.liverail.com cdn-static.liverail.com cdn.liverail.com dyn.atdmt.com facebook.com fbcdn.net liverail.com t4.liverail.com vox-static.liverail.com\"\n"), nil, 1)
	removed := len(srv.ac) < len(acList)
	srv.mu.Unlock()
	if !removed {
		t.Fatal("the fixture has no provider 89 row to remove")
	}
	offset.Store(int64(160 * time.Minute))
	if r, err = m.TCF.RefreshGVL(ctx); err != nil || strings.Join(r.Saved, ",") != "google-ac-providers" {
		t.Fatalf("refresh with a changed provider list: %+v %v", r, err)
	}
	if _, err := store.StoredGVL(ctx, 1, tcf.ACProvidersResource); err != nil {
		t.Fatalf("version 1 of Google's list was not kept: %v", err)
	}
	rep, err := m.Compliance.Report(ctx, org.ID, site.ID)
	must(t, err)
	var flagged []string
	for _, f := range rep.Findings {
		if f.RuleID == "consent.tcf-atp-removed" {
			flagged = append(flagged, f.Detail)
		}
	}
	if len(flagged) != 1 || !strings.Contains(flagged[0], "Provider 89 of tcf.googleAtpIds is no longer on Google's") {
		t.Fatalf("removed provider findings: %q", flagged)
	}

	// The IAB's server failing is an error, for the job to retry.
	srv.status.Store(http.StatusBadGateway)
	offset.Store(int64(190 * time.Minute))
	if _, err = m.TCF.RefreshGVL(ctx); err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("refresh while the IAB fails: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
