package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/geoip"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/adapters/memstore"
)

// BenchmarkLoader serves a site's loader (the configuration inlined in the runtime) to
// visitors behind a trusted proxy, each request from the next of a few addresses in Europe,
// the US and Japan, without a geolocator (every visitor nowhere) and with the embedded
// database. #26 asks that geolocation keep the loader's throughput within 5%.
//
// Run: go test ./adapters/httpapi/ -run '^$' -bench Loader -count 6 | benchstat -col /geo -
func BenchmarkLoader(b *testing.B) {
	geo, err := geoip.OpenEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	addrs := []string{"80.67.169.12", "130.149.7.201", "193.0.6.139", "81.2.69.142", "8.8.8.8", "202.12.27.33", "2001:67c:2e8::1", "2001:4860:4860::8888"}
	for _, on := range []bool{false, true} {
		name := "geo=off"
		cfg := httpapi.Config{Logger: slog.New(slog.DiscardHandler), RuntimeScript: bannerjs.Script(),
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		if on {
			name, cfg.Geolocator = "geo=on", geo
		}
		b.Run(name, func(b *testing.B) {
			m := memCore(b, memstore.New())
			ctx := context.Background()
			org, err := m.Orgs.CreateOrganization(ctx, "org")
			if err != nil {
				b.Fatal(err)
			}
			_, key, err := m.Orgs.CreateAPIKey(ctx, org.ID, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			cfg.UseCases = httpapi.FromCore(m)
			h := httpapi.New(cfg)
			req := httptest.NewRequest("POST", "/api/v1/sites", strings.NewReader(`{"name":"Shop","url":"https://shop.example"}`))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var site struct{ ProjectKey string }
			if err := json.Unmarshal(rec.Body.Bytes(), &site); err != nil || rec.Code != http.StatusCreated {
				b.Fatalf("create site: %d %s", rec.Code, rec.Body)
			}
			reqs := make([]*http.Request, len(addrs))
			for i, a := range addrs {
				reqs[i] = httptest.NewRequest("GET", "/api/v1/public/"+site.ProjectKey+"/loader.js", nil)
				reqs[i].RemoteAddr = "127.0.0.1:40000"
				reqs[i].Header.Set("X-Forwarded-For", a)
				reqs[i].Header.Set("Accept-Language", "en")
			}
			i := 0
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, reqs[i%len(reqs)])
				if rec.Code != http.StatusOK {
					b.Fatalf("loader: %d", rec.Code)
				}
				i++
			}
		})
	}
}
