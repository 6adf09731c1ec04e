package app

import (
	"net/http"
	"strings"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
)

// withConsole serves the web console at "/" beside api when cfg.Console is set: the API keeps
// /api/, /healthz, /readyz and /metrics, the console has every other path.
// The console's setup snippet is the API's (apiCfg's).
func withConsole(cfg Config, uc *core.UseCases, apiCfg httpapi.Config, api http.Handler) (http.Handler, error) {
	if !cfg.Console {
		return api, nil
	}
	con, err := console.New(console.Config{
		UseCases: console.FromCore(uc), Logger: cfg.Logger, Now: cfg.Now, PublicURL: cfg.PublicURL,
		RuntimeVersion: bannerjs.Version(), Snippet: apiCfg.SetupSnippet,
		ClientAddr: httpapi.ClientIP(trustedProxies(cfg.TrustedProxies)),
		CSVColumns: httpapi.ConsentCSVColumns(), CSVRow: httpapi.ConsentCSVRow,
	})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/api" || strings.HasPrefix(p, "/api/") || p == "/healthz" || p == "/readyz" || p == "/metrics" {
			api.ServeHTTP(w, r)
			return
		}
		con.ServeHTTP(w, r)
	}), nil
}
