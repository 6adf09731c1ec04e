package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"strings"

	"github.com/consentd/consentd/adapters/console/analyticsview"
	"github.com/consentd/consentd/adapters/console/experimentview"
	"github.com/consentd/consentd/adapters/console/formlimits"
	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
)

// page is what every page template gets.
type page struct {
	Title string
	// Warn says the notice (Flash) is a warning: what was saved does not work yet.
	Warn bool
	// Section is the main navigation's current entry ("sites", "keys"); Tab the site
	// navigation's ("overview", "banner", "services", "scans", "consents").
	Section string
	Tab     string
	Site    *core.Site
	CSRF    string
	Flash   string
	// Form names the form Error belongs to, so that the error shows beside it; Values are
	// what was entered there.
	Form   string
	Error  string
	Values url.Values
	// Data is the page's own.
	Data     any
	SignedIn bool
	Version  string
	Features features
	// Actor is who the session acts as (nil before sign-in).
	Actor *core.Actor
	// Orgs are the signed-in person's organizations when they have more than one (for the
	// header's switcher); OrgID is the one the session is in.
	Orgs  []*identity.Membership
	OrgID string
}

// Can reports whether the signed-in person's role has permission perm, so that a page
// shows only the actions the use cases would allow.
func (p page) Can(perm string) bool { return p.Actor.Can(core.Permission(perm)) }

// features are what the deployment's configuration adds to the pages.
type features struct {
	// SSO says whether the sign-in page offers single sign-on (some organization has it).
	SSO bool
}

// Value is the entered value of a form field.
func (p page) Value(k string) string { return p.Values.Get(k) }

// ErrorFor is Error when it belongs to form.
func (p page) ErrorFor(form string) string {
	if p.Form == form {
		return p.Error
	}
	return ""
}

// pageOf is what a page template is checked against: page with the page's own Data, typed.
// (render executes the template with the page itself, whose Data holds a D: the same fields.)
type pageOf[D any] struct {
	page
	Data D
}

// noData is the Data of a page that has none (render then requires nil).
type noData struct{}

// pageTypes are the page templates, each executed inside layout.html (preview.html alone), with
// the type of their data: TestTemplatesAgainstTheirPageTypes checks every template against
// its type (an unknown field or method fails it), and render refuses data of another type.
var pageTypes = map[string]any{
	"signin": pageOf[noData]{}, "signincode": pageOf[noData]{}, "error": pageOf[noData]{},
	"sites": pageOf[[]siteRow]{}, "site": pageOf[overview]{}, "confirm": pageOf[confirmation]{},
	"banner": pageOf[bannerEditor]{}, "services": pageOf[catalogPage]{}, "service": pageOf[serviceForm]{},
	"library": pageOf[libraryResults]{}, "scans": pageOf[scansData]{}, "scan": pageOf[scanView]{},
	"consents": pageOf[recordsView]{}, "keys": pageOf[keysView]{}, "audit": pageOf[auditView]{},
	"sessions": pageOf[sessionsView]{}, "members": pageOf[membersView]{}, "invite": pageOf[*inviteView]{},
	"totp": pageOf[totpView]{}, "account": pageOf[accountView]{}, "ssocontinue": pageOf[string]{}, "webhooks": pageOf[webhooksView]{},
	"preview": pageOf[previewPage]{}, "analytics": pageOf[*analyticsview.Page]{},
	"experiments": pageOf[*experimentview.List]{}, "experiment": pageOf[*experimentview.Detail]{},
}

// dataType is the type of page name's Data.
func dataType(name string) reflect.Type {
	t := reflect.TypeOf(pageTypes[name])
	if t == nil {
		return nil
	}
	f, _ := t.FieldByName("Data")
	return f.Type
}

var noDataType = reflect.TypeFor[noData]()

func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for n := range pageTypes {
		if n == "preview" {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if out[n], err = t.ParseFS(files, "templates/"+n+".html"); err != nil {
			return nil, err
		}
	}
	if out["preview"], err = template.New("preview.html").Funcs(funcs).ParseFS(files, "templates/preview.html"); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *handler) funcs() template.FuncMap {
	return template.FuncMap{
		"asset":   func(name string) string { return "/assets/" + name + "?v=" + h.version },
		"max":     formlimits.Max,
		"min":     formlimits.Min,
		"pattern": formlimits.Pattern,
		// api is a path of the API (core.APIPrefix + p), cookiesPage a site's cookie declaration page.
		"api":         func(p string) string { return core.APIPrefix + p },
		"cookiesPage": func(projectKey string) string { return core.PublicPath(projectKey, core.PublicCookiesPage) },
		"time":        textfmt.Time,
		"ptime":       textfmt.PTime,
		"iso":         textfmt.ISO,
		"deref":       textfmt.Deref,
		"join":        strings.Join,
		// place names where a verification's run visited from (core.RulePlace.Location).
		"place": func(loc string) string {
			switch loc {
			case "":
				return "the scanner's own location"
			case core.RegionUnknown:
				return "an unknown location"
			}
			if n := core.SubdivisionName(loc); n != "" {
				return n + " (" + loc + ")"
			}
			return loc
		},
		// scanSchedules, verifySchedules and eventTypes are core's lists, for selects.
		"scanSchedules":   scan.ScanSchedules,
		"verifySchedules": scan.VerifySchedules,
		"lastAttempt":     lastAttempt,
		"paths":           textfmt.Paths,
		"plural":          textfmt.Plural,
		"human":           textfmt.Human,
		"action": func(a string) string {
			if n, ok := actionNames[a]; ok {
				return n
			}
			return textfmt.Human(a)
		},
		"add":       func(a, b int) int { return a + b },
		"int":       func(n int64) int { return int(n) },
		"findingOf": findingOf,
		"pct":       textfmt.Pct,
		"hasPrefix": strings.HasPrefix,
		"hasSuffix": strings.HasSuffix,
		"isHex":     textfmt.IsHex,
		"query":     textfmt.Query,
	}
}

// warnFlash starts a notice that is a warning (shown as one, and announced at once): the
// change was saved but does not do what it is for yet.
// (It is text: the flash is stored in the session's row.)
const warnFlash = "⚠ "

// render executes a page template; the page gets the session's token, notice and the build's
// features.
func (h *handler) render(w http.ResponseWriter, r *http.Request, rq *request, status int, name string, p page) {
	if rq != nil {
		p.CSRF = rq.s.CSRF
		p.SignedIn = true
		p.Actor = rq.actor
		p.OrgID = rq.org
		if rq.s.UserID != "" {
			ms, err := h.m.Memberships(r.Context(), rq.s.UserID)
			if err != nil {
				h.log.ErrorContext(r.Context(), "could not list a member's organizations", "err", err)
			} else if len(ms) > 1 {
				p.Orgs = ms
			}
		}
		if p.Flash == "" {
			p.Flash = h.m.TakeFlash(r.Context(), rq.s)
		}
		if m, ok := strings.CutPrefix(p.Flash, warnFlash); ok {
			p.Flash, p.Warn = m, true
		}
	}
	p.Version = h.version
	if rq == nil {
		p.Features = h.features(r.Context())
	}
	t := h.pages[name]
	if want, got := dataType(name), reflect.TypeOf(p.Data); t == nil || want == nil || (got == nil) != (want == noDataType) || (got != nil && got != want) {
		h.log.ErrorContext(r.Context(), "console template failed", "page", name, "err", fmt.Sprintf("page data %v, want %v", got, want))
		http.Error(w, "The page could not be shown; the error was logged.", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	tpl := "layout.html"
	if name == "preview" {
		tpl = "preview.html"
	}
	if err := t.ExecuteTemplate(&buf, tpl, p); err != nil {
		h.log.ErrorContext(r.Context(), "console template failed", "page", name, "err", err)
		http.Error(w, "The page could not be shown; the error was logged.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "HX-Request")
	response.SetRetryAfter(w.Header(), status)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorPage shows a whole-page error in words.
func (h *handler) errorPage(w http.ResponseWriter, r *http.Request, rq *request, status int, title, msg string) {
	h.render(w, r, rq, status, "error", page{Title: title, Error: msg})
}

// fail shows err as a whole-page error.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	status, msg := h.message(r, err)
	title := "Something went wrong"
	switch status {
	case http.StatusNotFound:
		title = "Not found"
	case http.StatusForbidden:
		title = "Not allowed"
	}
	h.errorPage(w, r, rq, status, title, msg)
}

// assetVersion is a digest of every asset, so that their URLs change when they do.
func assetVersion(assets fs.FS) (string, error) {
	hs := sha256.New()
	err := fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets, p)
		if err != nil {
			return err
		}
		hs.Write([]byte(p))
		hs.Write(b)
		return nil
	})
	return hex.EncodeToString(hs.Sum(nil))[:12], err
}

var assetTypes = map[string]string{
	".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
}

// serveAsset serves an embedded asset; with the current ?v= it may be cached for a year.
func (h *handler) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ct, ok := assetTypes[path.Ext(name)]
	if !ok || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(h.assets, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	if r.URL.Query().Get("v") == h.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Header().Set("ETag", `"`+h.version+`"`)
	if r.Header.Get("If-None-Match") == `"`+h.version+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(b)
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
