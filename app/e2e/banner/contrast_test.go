package banner_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core/banner"
)

// TestBrowserButtonTextParity checks that the runtime writes its buttons' text in the colour
// core.ButtonTextColor says, which the compliance report's contrast rules compute with: the
// real runtime shows its banner for configured accept and reject colours, and the text colours
// it set on the banner are compared with core's, over colours on both sides of the threshold,
// short and upper-case hex, and values that are not hex.
//
// Like TestBrowserPatternParity it serves a minimal config endpoint, here to try many colour
// pairs without a store.
func TestBrowserButtonTextParity(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"#ffffff", "#000000"}, {"#1a56db", "#1a73e8"}, {"#808080", "#b0b0b0"}, {"#FFD700", "#ffd"},
		{"#abc", "#0f0"}, {"#aaaaaa", "#a9a9a9"}, {"#b4b4b4", "#b5b5b5"}, {"red", ""},
		{"#12345", "#e07000"}, {"#00ff00", "#ff0000"},
	}
	cfgFor := func(pk string, colors map[string]string) []byte {
		b, err := json.Marshal(map[string]any{
			"projectKey": pk, "jurisdiction": "gdpr",
			"banner": map[string]any{"template": "floating", "position": "bottom_right", "colors": colors,
				"textOverrides": map[string]any{}, "textTranslations": map[string]any{}, "defaultBehavior": "opt_in",
				"closeButtonBehavior": "dismiss", "cookieExpirationDays": 180, "consentVersion": 1},
			"categories": []map[string]any{
				{"slug": "essential", "name": "Essential", "isRequired": true, "sortOrder": 0, "services": []any{}},
				{"slug": "marketing", "name": "Marketing", "isRequired": false, "sortOrder": 1, "services": []any{}},
			},
			"blockingRules": map[string]any{"siteWide": false, "rules": []any{}},
			"policy":        standInPolicy(),
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/public/banner.js", http.StripPrefix("/api/v1/public", bannerjs.Handler()))
	for i, p := range pairs {
		colors := map[string]string{"acceptButton": p[0]}
		if p[1] != "" {
			colors["rejectButton"] = p[1]
		}
		cfg := cfgFor(fmt.Sprintf("pk_contrast%d", i), colors)
		mux.HandleFunc(fmt.Sprintf("GET /api/v1/public/pk_contrast%d/config", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(cfg)
		})
	}
	api := httptest.NewServer(mux)
	t.Cleanup(api.Close)
	s := newSite(t, api.URL)
	ctx := tab(t)
	for i, p := range pairs {
		pk := fmt.Sprintf("pk_contrast%d", i)
		snippet := `<script src="` + api.URL + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + pk + `"></script>`
		navigate(t, ctx, s.page(fmt.Sprintf("contrast%d", i), "en", snippet, "", ""))
		waitFor(t, ctx, `!!window.__cd('[data-action="accept"]')`)
		var got []string
		eval(t, ctx, `(function () { var st = document.querySelector('consentd-ui').style;
			return [st.getPropertyValue('--cd-accept-text'), st.getPropertyValue('--cd-reject-text')]; })()`, &got)
		for j, c := range p {
			if want := banner.ButtonTextColor(c); len(got) != 2 || !strings.EqualFold(strings.TrimSpace(got[j]), want) {
				t.Errorf("button colour %q: runtime text %v, core %s", c, got, want)
			}
		}
	}
	noViolations(t, ctx)
}
