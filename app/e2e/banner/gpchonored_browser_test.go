package banner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/i18n"
)

// TestBrowserGPCHonored is #45's test of California's honoured indication (CCPA regulations
// §7025(c)(6); the law table's gpcDisplayRequiredFrom). A visitor from California with
// Sec-GPC: 1, under an opt-out rule honouring GPC, in English and in Spanish: the runtime
// records the signal at once and shows no banner; its reopen control reads "Opt-Out Request
// Honored" (Spanish "Solicitud de exclusión atendida") and a status announces it to screen
// readers; the preferences it opens say it as a status too. axe-core finds nothing on either;
// screenshots of both. A visitor from Virginia (a law without the display) with the same signal
// sees the control's usual label.
func TestBrowserGPCHonored(t *testing.T) {
	t.Parallel()
	browser(t)
	edge := regionalEdge(t, nil)
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme Honored", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "meta-pixel"}, 201, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{
		"regionRules": []map[string]any{{"regions": []string{"US"}, "defaultBehavior": "opt_out"}},
	}, 200, nil)
	reopen := `(function () { var h = document.querySelector('consentd-reopen'); return h && h.shadowRoot; })()`
	for _, c := range []struct{ lang, region, want string }{
		{"en", "CA", "Opt-Out Request Honored"},
		{"es", "CA", "Solicitud de exclusión atendida"},
		{"en", "VA", ""},
	} {
		t.Run(c.lang+"-"+c.region, func(t *testing.T) {
			if texts, _ := i18n.Texts(c.lang); c.want != "" && texts["gpcHonored"] != c.want {
				t.Fatalf("built-in gpcHonored in %s is %q, want %q", c.lang, texts["gpcHonored"], c.want)
			}
			ctx := tab(t, gpcInit, `Object.defineProperty(Navigator.prototype, 'languages', {get: function () { return ['`+c.lang+`']; }, configurable: true});
Object.defineProperty(Navigator.prototype, 'language', {get: function () { return '`+c.lang+`'; }, configurable: true});`)
			err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Sec-GPC": "1", "Accept-Language": c.lang}})
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
			api := edge(map[string]string{countryHeader: "US", regionHeader: c.region})
			s := newSite(t, api)
			navigate(t, ctx, s.raw("h-"+c.lang+c.region, `<!doctype html><html lang="`+c.lang+`"><head><meta charset="utf-8"><title>Acme</title>
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script></head>
<body><main><h1>Acme</h1><p>News of the day.</p></main></body></html>`))
			waitFor(t, ctx, `!!`+reopen+` && !!`+reopen+`.querySelector('[data-action=reopen]')`)
			var label string
			eval(t, ctx, reopen+`.querySelector('[data-action=reopen]').textContent`, &label)
			if c.want == "" {
				if label != "Do Not Sell or Share My Personal Information" {
					t.Errorf("Virginia: the reopen control reads %q, want its usual label", label)
				}
				return
			}
			if label != c.want {
				t.Fatalf("the reopen control reads %q, want %q", label, c.want)
			}
			waitFor(t, ctx, `!!`+reopen+`.querySelector('[role=status]')`)
			var status string
			eval(t, ctx, reopen+`.querySelector('[role=status]').textContent`, &status)
			if status != c.want {
				t.Errorf("the status announces %q, want %q", status, c.want)
			}
			axeCheck(t, ctx, "the reopen control, GPC honoured ("+c.lang+")", "consentd-reopen")
			screenshot(t, ctx, "gpc-honored-reopen-"+c.lang)
			eval(t, ctx, reopen+`.querySelector('[data-action=reopen]').click()`, nil)
			waitFor(t, ctx, `!!window.__cd('[data-gpc-honored]')`)
			var note struct{ Role, Text string }
			eval(t, ctx, `(function () { var p = window.__cd('[data-gpc-honored]'); return {role: p.getAttribute('role'), text: p.textContent}; })()`, &note)
			if note.Role != "status" || !strings.HasPrefix(note.Text, c.want) {
				t.Errorf("the preferences' GPC note %+v, want a status starting %q", note, c.want)
			}
			axeCheck(t, ctx, "the preferences, GPC honoured ("+c.lang+")", "consentd-ui")
			screenshot(t, ctx, "gpc-honored-preferences-"+c.lang)
		})
	}
}
