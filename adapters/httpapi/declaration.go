package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

//go:embed templates/cookies.html
var templates embed.FS

// declarationCSS styles the cookie declaration page; the page's Content-Security-Policy allows
// exactly this stylesheet by its hash.
const declarationCSS = `body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#fff}
main{max-width:860px;margin:0 auto;padding:32px 20px 64px}h1{font-size:30px;margin:0 0 8px}h2{font-size:21px;margin:32px 0 6px}
h3{font-size:17px;margin:20px 0 4px}a{color:#0b57d0}table{border-collapse:collapse;width:100%;margin:8px 0 12px;font-size:14px}
th,td{border:1px solid #d5dae1;padding:6px 8px;text-align:left;vertical-align:top}th{background:#f3f5f8}
code{font-size:13px;word-break:break-all}.upd,.site{color:#4b5563}.choice{background:#f3f5f8;border-radius:10px;padding:4px 18px 14px;margin-top:24px}
.choice ul{padding-left:20px}.choice button{font:inherit;padding:8px 14px;margin:6px 8px 0 0;border-radius:8px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}
.choice button.sec{background:#fff;color:#0b57d0}.note{color:#4b5563;font-size:14px}button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`

var (
	cookiesPage = template.Must(template.New("cookies.html").Funcs(template.FuncMap{
		"t": func(string) string { return "" }, "tv": func(string, ...string) string { return "" },
		"storage": func(string) string { return "" }, "duration": func(string) string { return "" },
	}).ParseFS(templates, "templates/cookies.html"))
	declarationCSP = func() string {
		sum := sha256.Sum256([]byte(declarationCSS))
		return "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'sha256-" +
			base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
	}()
)

// declarationTexts are the template functions of a declaration in its language.
func declarationTexts(d *banner.Declaration) template.FuncMap {
	t := func(key string) string {
		if v, ok := d.Texts[key]; ok {
			return v
		}
		return key
	}
	return template.FuncMap{
		"t": t,
		// tv replaces {name} placeholders: tv "key" "name" value ...
		"tv": func(key string, pairs ...string) string {
			s := t(key)
			for i := 0; i+1 < len(pairs); i += 2 {
				s = strings.ReplaceAll(s, "{"+pairs[i]+"}", pairs[i+1])
			}
			return s
		},
		"storage": func(typ string) string {
			switch typ {
			case "localStorage":
				return t("storageLocal")
			case "sessionStorage":
				return t("storageSession")
			}
			return t("storageCookie")
		},
		"duration": func(s string) string {
			if strings.EqualFold(strings.TrimSpace(s), "session") {
				return t("sessionDuration")
			}
			return s
		},
	}
}

// declaration is the site's cookie declaration in the visitor's languages.
func (h *handlers) declaration(ctx context.Context, in *pageInput) (*banner.Declaration, error) {
	prefs, err := in.prefs()
	if err != nil {
		return nil, err
	}
	return h.m.Declaration(ctx, in.ProjectKey, prefs...)
}

func (h *handlers) registerDeclaration(api huma.API) {
	o := publicOp("getDeclaration", http.MethodGet, core.PublicRoute(core.PublicDeclaration), "Cookie declaration", 0)
	o.Description = "The site's cookie declaration in the visitor's language (lang, then Accept-Language): every category with its services, their privacy policies, and each cookie with its type, duration and purpose. Computed from the current configuration, so it follows every change of services; cached like the configuration. The banner runtime renders it into any <div data-consentd-declaration> element."
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The declaration.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(banner.Declaration{}), true, "Declaration")},
		}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *pageInput) (*bodyOutput, error) {
		d, err := h.declaration(ctx, in)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		raw, err := json.Marshal(d)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return rawBody(raw, "application/json", "public, max-age=60", in.IfNoneMatch, "Accept-Language"), nil
	})

	o = publicOp("getCookiePage", http.MethodGet, core.PublicRoute(core.PublicCookiesPage), "Cookie declaration page", 0)
	o.Description = "The cookie declaration as an HTML page in the visitor's language, usable as the banner's cookiePolicyUrl. The banner runtime on the page shows the visitor's current choice (passed by the runtime in the link's fragment), its date and record ID, and buttons to change or withdraw consent."
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The page.", Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: huma.TypeString}}}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *pageInput) (*bodyOutput, error) {
		d, err := h.declaration(ctx, in)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		tpl, err := cookiesPage.Clone()
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		var b bytes.Buffer
		if err := tpl.Funcs(declarationTexts(d)).Execute(&b, struct {
			D   *banner.Declaration
			CSS template.CSS
		}{d, template.CSS(declarationCSS)}); err != nil {
			return nil, h.fail(ctx, err)
		}
		out := rawBody(b.Bytes(), "text/html; charset=utf-8", "public, max-age=60", in.IfNoneMatch, "Accept-Language")
		body := out.Body
		out.Body = func(hc huma.Context) {
			hc.SetHeader("Content-Security-Policy", declarationCSP)
			hc.SetHeader("X-Content-Type-Options", "nosniff")
			hc.SetHeader("Referrer-Policy", "no-referrer")
			body(hc)
		}
		return out, nil
	})
}
