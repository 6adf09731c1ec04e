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
	"regexp"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/watch"
)

// page is what every page template gets.
type page struct {
	Title string
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

// pageNames are the page templates, each executed inside layout.html.
var pageNames = []string{"signin", "sites", "site", "confirm", "banner", "services", "service", "library",
	"scans", "scan", "consents", "error", "keys", "audit", "sessions", "members", "invite", "signincode", "totp", "ssocontinue", "webhooks"}

func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range pageNames {
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
		"max":     formMax,
		"min":     formMin,
		"pattern": formPattern,
		// api is a path of the API (core.APIPrefix + p), cookiesPage a site's cookie declaration page.
		"api":         func(p string) string { return core.APIPrefix + p },
		"cookiesPage": func(projectKey string) string { return core.PublicPath(projectKey, core.PublicCookiesPage) },
		"time": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2 Jan 2006, 15:04 UTC")
		},
		"ptime": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.UTC().Format("2 Jan 2006, 15:04 UTC")
		},
		"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"join": strings.Join,
		// scanSchedules, verifySchedules and eventTypes are core's lists, for selects.
		"scanSchedules":   scan.ScanSchedules,
		"verifySchedules": scan.VerifySchedules,
		"lastAttempt":     lastAttempt,
		"paths": func(urls []string) string {
			out := make([]string, len(urls))
			for i, u := range urls {
				if p, err := url.Parse(u); err == nil && p.Path != "" {
					u = p.Path
				}
				out[i] = u
			}
			return strings.Join(out, " ")
		},
		"plural": plural,
		"human":  human,
		"action": func(a string) string {
			if n, ok := actionNames[a]; ok {
				return n
			}
			return human(a)
		},
		"add":       func(a, b int) int { return a + b },
		"int":       func(n int64) int { return int(n) },
		"findingOf": findingOf,
		"pct": func(n, d int) int {
			if d == 0 {
				return 0
			}
			return (n*100 + d/2) / d
		},
		"hasPrefix": strings.HasPrefix,
		"hasSuffix": strings.HasSuffix,
		"isHex":     hexColor.MatchString,
		"query": func(kv ...string) string {
			v := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] != "" {
					v.Set(kv[i], kv[i+1])
				}
			}
			return v.Encode()
		},
	}
}

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// human turns an identifier ("wide_bar", "bottom_left", "acceptLabel") into words.
func human(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case r >= 'A' && r <= 'Z' && i > 0:
			b.WriteByte(' ')
			b.WriteRune(r + 'a' - 'A')
		case i == 0 && r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

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
	}
	p.Version = h.version
	if rq == nil {
		p.Features = h.features(r.Context())
	}
	t := h.pages[name]
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

// formLimits are the maxlength (or, for a number, the max) of the console's form fields, by
// field, and formMinimums the min of its numbers: core's limits, so that a form never allows
// what the API refuses or refuses what it allows.
var formLimits = map[string]int{
	"cookieExpirationDays": banner.MaxCookieExpiration, "reaskAfterRejectDays": banner.MaxReask,
	"siteName": core.MaxSiteName, "url": core.MaxURL, "slug": banner.MaxSlug,
	"categoryName": banner.MaxCategoryName, "categoryDescription": banner.MaxCategoryDescription,
	"serviceLabel": banner.MaxServiceLabel, "serviceDescription": banner.MaxServiceDescription,
	"cookieName": banner.MaxCookieName, "cookieDuration": banner.MaxCookieDuration, "cookieDescription": banner.MaxCookieDescription,
	"text": banner.MaxTranslation, "language": banner.MaxLanguageKey, "apiKeyName": identity.MaxAPIKeyName,
	"userName": identity.MaxUserName, "userPassword": identity.MaxPassword,
	"password": scan.MaxPasswordSize, "visitorId": consent.MaxVisitorID, "reopenLabel": banner.MaxReopenLabel,
	"digestEmails": watch.MaxDigestEmails, "webhookDescription": watch.MaxWebhookDescription,
}

var formMinimums = map[string]int{"cookieExpirationDays": banner.MinCookieExpiration, "reaskAfterRejectDays": banner.MinReask}

// formPatterns are the pattern attributes of form fields: core's patterns without their
// anchors, which the attribute implies.
var formPatterns = map[string]string{"slug": htmlPattern(core.SlugPattern)}

func htmlPattern(re string) string { return strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$") }

// formMin is the template function min: the minimum of a number field; like formMax, an
// unknown field fails the rendering.
func formMin(field string) (int, error) {
	if n, ok := formMinimums[field]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("console: no form minimum named %q", field)
}

// formPattern is the template function pattern: the pattern attribute of a field.
func formPattern(field string) (string, error) {
	if p, ok := formPatterns[field]; ok {
		return p, nil
	}
	return "", fmt.Errorf("console: no form pattern named %q", field)
}

// formMax is the template function max: the limit of a form field; an unknown field fails
// the page's rendering, which every page's test would show.
func formMax(field string) (int, error) {
	if n, ok := formLimits[field]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("console: no form limit named %q", field)
}
