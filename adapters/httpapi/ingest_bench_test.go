package httpapi_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
	sitepkg "github.com/consentd/consentd/core/site"
)

// BenchmarkPublicConsentPost is the HTTP layer's share of consent ingest: one public consent
// POST through the whole handler (guards, telemetry, gzip, input checks, huma, core) on the
// in-memory store, so that the figure is the API's own CPU per record, without a database.
// consentd-load measures the same path end to end on a real store.
//
//	go test -run '^$' -bench PublicConsentPost -benchmem ./adapters/httpapi/
func BenchmarkPublicConsentPost(b *testing.B) {
	ctx := sysCtx
	m := memCore(b, memstore.New())
	org, err := m.Orgs.CreateOrganization(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	name, url := "bench", "https://shop.example"
	site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: &name, URL: &url})
	if err != nil {
		b.Fatal(err)
	}
	h := httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.DiscardHandler),
		PublicRateLimit: 0, RuntimeScript: []byte("/* runtime */")})
	path := "/api/v1/public/" + site.ProjectKey + "/consent"
	i := 0
	for b.Loop() {
		i++
		body := `{"visitorId":"bench-` + strconv.Itoa(i) + `","consentVersion":1,"categories":{"statistics":true},` +
			`"language":"de","runtimeVersion":"1.4.0","pageUrl":"https://shop.example/p/7?session=1"}`
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusCreated {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
