package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/adapters/internal/trustedproxy"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

//go:embed assets templates
var files embed.FS

// Config is what the console is built from.
type Config struct {
	UseCases UseCases
	Logger   *slog.Logger
	// Now is the clock (sessions and the sign-in limit).
	Now func() time.Time
	// TrustedProxies are the peers whose forwarding headers the console believes, as the API
	// does (the same rule, adapters/internal/trustedproxy): the client address the sign-in
	// limit counts, and whether a request came over HTTPS, which makes the console's cookies
	// Secure. None: every peer is the client, and only the connection's own TLS counts.
	TrustedProxies []netip.Prefix
	// PublicURL is the external base URL of the service for setup snippets ("": the
	// request's own).
	PublicURL string
	// RuntimeVersion is appended to the runtime's URL in the banner preview.
	RuntimeVersion string
	// SnippetLoader is whether the service serves the per-site loader, which the setup
	// snippet then loads (as the API's does: the same response.Snippets); false loads the
	// runtime with RuntimeVersion.
	SnippetLoader bool
	// SessionTTL bounds a session's life (default 12 h); IdleTimeout ends it after that long
	// without a request (default 1 h).
	SessionTTL  time.Duration
	IdleTimeout time.Duration
	// SignInFailures failed sign-ins from one address within SignInWindow (default 5 in 15
	// min) make it wait.
	SignInFailures int
	SignInWindow   time.Duration
	// SSO finds organizations' OpenID providers (nil: no single sign-on).
	SSO SSOProviders
}

// handler is the console.
type handler struct {
	cfg Config
	m   UseCases
	log *slog.Logger
	// proxies is the trusted-proxy rule: the client's address, whether it came over HTTPS.
	proxies *trustedproxy.Rule
	// snippets writes the setup snippets, byte for byte as the API does.
	snippets response.Snippets
	pages    map[string]*template.Template
	assets   fs.FS
	version  string
	mux      *http.ServeMux
	// patterns are the mux's route patterns (Patterns).
	patterns []string
}

// Patterns returns the route patterns of a handler made by New ("GET /sites/{siteID}", ...), in
// the order they were registered, so that end-to-end tests can walk every page and form
// without a list of their own; nil for any other handler.
func Patterns(h http.Handler) []string {
	if c, ok := h.(*handler); ok {
		return append([]string(nil), c.patterns...)
	}
	return nil
}

// patternMux is a ServeMux that remembers its patterns.
type patternMux struct {
	*http.ServeMux
	patterns []string
}

func (m *patternMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

func (m *patternMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

// New builds the console's HTTP handler, to be mounted at "/".
func New(cfg Config) (http.Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = time.Hour
	}
	if cfg.SignInFailures <= 0 {
		cfg.SignInFailures = identity.SignInFailures
	}
	if cfg.SignInWindow <= 0 {
		cfg.SignInWindow = identity.SignInWindow
	}
	assets, err := fs.Sub(files, "assets")
	if err != nil {
		return nil, err
	}
	h := &handler{
		cfg: cfg, m: cfg.UseCases, log: cfg.Logger, assets: assets, proxies: trustedproxy.New(cfg.TrustedProxies),
		snippets: response.Snippets{PublicURL: cfg.PublicURL, Loader: cfg.SnippetLoader, RuntimeVersion: cfg.RuntimeVersion},
	}
	if h.version, err = assetVersion(assets); err != nil {
		return nil, err
	}
	if h.pages, err = parsePages(h.funcs()); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func (h *handler) routes() {
	mux := &patternMux{ServeMux: http.NewServeMux()}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/sites", http.StatusSeeOther) })
	mux.HandleFunc("GET /assets/{name...}", h.serveAsset)
	mux.Handle("GET /favicon.ico", http.RedirectHandler("/assets/favicon.svg", http.StatusMovedPermanently))
	mux.HandleFunc("GET /sign-in", h.signInPage)
	mux.HandleFunc("POST /sign-in", h.signIn)
	mux.HandleFunc("POST /sign-out", h.signOut)

	a := func(pattern string, fn func(http.ResponseWriter, *http.Request, *request)) {
		mux.Handle(pattern, h.authed(fn))
	}
	a("GET /sites", h.sitesPage)
	a("POST /sites", h.createSite)
	a("GET /sites/{id}", h.sitePage)
	a("POST /sites/{id}", h.renameSite)
	a("GET /sites/{id}/delete", h.confirmDeleteSite)
	a("POST /sites/{id}/delete", h.deleteSite)
	a("POST /sites/{id}/blocking", h.setBlocking)
	a("POST /sites/{id}/enforce", h.enforce)
	a("POST /sites/{id}/watch", h.saveWatch)

	a("GET /sites/{id}/banner", h.bannerPage)
	a("POST /sites/{id}/banner", h.saveBanner)
	a("POST /sites/{id}/banner/preview", h.bannerPreview)
	a("POST /sites/{id}/banner/tcf", h.saveTCF)
	a("POST /sites/{id}/banner/gpp", h.saveGPP)

	a("GET /sites/{id}/services", h.servicesPage)
	a("POST /sites/{id}/categories", h.createCategory)
	a("POST /sites/{id}/categories/{cid}", h.updateCategory)
	a("POST /sites/{id}/categories/{cid}/move", h.moveCategory)
	a("GET /sites/{id}/categories/{cid}/delete", h.confirmDeleteCategory)
	a("POST /sites/{id}/categories/{cid}/delete", h.deleteCategory)
	a("GET /sites/{id}/library", h.libraryPage)
	a("POST /sites/{id}/library/import", h.importService)
	a("GET /sites/{id}/services/new", h.newServicePage)
	a("POST /sites/{id}/services/new", h.createService)
	a("GET /sites/{id}/services/{sid}", h.servicePage)
	a("POST /sites/{id}/services/{sid}", h.updateService)
	a("GET /sites/{id}/services/{sid}/delete", h.confirmDeleteService)
	a("POST /sites/{id}/services/{sid}/delete", h.deleteService)

	a("GET /sites/{id}/scans", h.scansPage)
	a("POST /sites/{id}/scans", h.triggerScan)
	a("GET /sites/{id}/scans/{scan}", h.scanPage)
	a("POST /sites/{id}/scans/{scan}/configure", h.configureScan)

	a("GET /keys", h.keysPage)
	a("POST /keys", h.createKey)
	a("POST /keys/{kid}/rotate", h.rotateKey)
	a("GET /keys/{kid}/revoke", h.confirmRevokeKey)
	a("POST /keys/{kid}/revoke", h.revokeKey)
	a("GET /audit", h.auditPage)
	a("GET /webhooks", h.webhooksPage)
	a("POST /webhooks", h.createWebhook)
	a("POST /webhooks/{wid}/test", h.testWebhook)
	a("GET /webhooks/{wid}/delete", h.confirmDeleteWebhook)
	a("POST /webhooks/{wid}/delete", h.deleteWebhook)
	mux.HandleFunc("GET /sso/start", h.ssoFind)
	mux.HandleFunc("GET /sso/{org}/start", h.ssoStart)
	mux.HandleFunc("GET /sso/callback", h.ssoCallback)
	mux.HandleFunc("GET /invite/{token}", h.invitePage)
	mux.HandleFunc("POST /invite/{token}", h.acceptInvite)
	mux.HandleFunc("GET /reset/{token}", h.resetPage)
	mux.HandleFunc("POST /reset/{token}", h.resetPassword)
	a("GET /members", h.membersPage)
	a("POST /members/invite", h.invite)
	a("POST /members/{uid}/role", h.changeRole)
	a("GET /members/{uid}/remove", h.confirmRemoveMember)
	a("POST /members/{uid}/remove", h.removeMember)
	a("POST /members/sso", h.saveSSO)
	a("GET /members/sso/delete", h.confirmDeleteSSO)
	a("POST /members/sso/delete", h.deleteSSO)
	a("POST /switch", h.switchOrg)
	a("GET /sessions", h.sessionsPage)
	a("POST /sessions/{sid}/revoke", h.revokeSession)
	a("GET /account", h.accountPage)
	a("POST /account/password", h.changePassword)
	a("GET /account/totp", h.totpPage)
	a("POST /account/totp", h.enableTOTP)
	a("POST /account/totp/disable", h.disableTOTP)
	a("POST /account/totp/recovery", h.newRecoveryCodes)
	a("GET /members/{uid}/totp-reset", h.confirmResetMemberTOTP)
	a("POST /members/{uid}/totp-reset", h.resetMemberTOTP)
	a("GET /sites/{id}/consents", h.consentsPage)
	a("GET /sites/{id}/consents/export", h.exportConsents)
	a("GET /sites/{id}/analytics", h.analyticsPage)
	a("GET /sites/{id}/experiments", h.experimentsPage)
	a("GET /sites/{id}/experiments/{eid}", h.experimentPage)
	a("POST /sites/{id}/experiments/{eid}/{action}", h.experimentAction)
	a("GET /sites/{id}/consents/erase", h.confirmErase)
	a("POST /sites/{id}/consents/erase", h.erase)

	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.errorPage(w, r, nil, http.StatusNotFound, "Page not found", "There is no page at this address. Go back to your sites.")
	})
	h.mux, h.patterns = mux.ServeMux, mux.patterns
}

// ServeHTTP answers every console request with the security headers of its kind of response.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
	if strings.HasSuffix(r.URL.Path, "/banner/preview") {
		hd.Set("Content-Security-Policy", previewCSP)
		hd.Set("X-Frame-Options", "SAMEORIGIN")
	} else {
		hd.Set("Content-Security-Policy", pageCSP)
		hd.Set("X-Frame-Options", "DENY")
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	}
	h.mux.ServeHTTP(w, r)
}

// pageCSP lets a console page load only the console's own scripts, styles and images: no inline
// script or style, no eval, no request to another origin, framed by nobody.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// previewCSP is the banner preview's: the runtime and the preview's own script, framed only by
// the console (and sandboxed there).
const previewCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'none'; frame-ancestors 'self'; base-uri 'none'"

// request is what a signed-in request carries.
type request struct {
	s   *session
	id  string // the session cookie's value
	org string
	// actor is who the session acts as (role, sites).
	actor *core.Actor
}

// authed wraps a page that needs a session; a POST also needs the session's CSRF token.
func (h *handler) authed(fn func(http.ResponseWriter, *http.Request, *request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie(sessionCookie)
		var s *session
		if c != nil {
			var err error
			if s, err = h.resumeSession(r.Context(), c.Value); core.IsUnavailable(err) {
				h.fail(w, r, nil, err)
				return
			}
		}
		var actor *core.Actor
		if s != nil {
			var ok bool
			if actor, ok = h.keyActor(r, s); !ok {
				if err := h.m.EndSession(r.Context(), c.Value); err != nil {
					h.log.ErrorContext(r.Context(), "could not end a session", "err", err)
				}
				s = nil
			}
		}
		if s == nil {
			if r.Method != http.MethodGet {
				h.errorPage(w, r, nil, http.StatusUnauthorized, "Signed out", "Your session has ended. Sign in again and repeat what you were doing.")
				return
			}
			next := r.URL.Path
			if r.URL.RawQuery != "" {
				next += "?" + r.URL.RawQuery
			}
			if r.Header.Get("HX-Request") == "true" {
				w.Header().Set("HX-Redirect", "/sign-in?next="+url.QueryEscape(next))
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/sign-in?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		// The use cases authorize the person by the role and sites of the key they signed in
		// with, as the API does.
		r = r.WithContext(core.WithActor(r.Context(), actor))
		rq := &request{s: s, id: c.Value, org: s.OrgID, actor: actor}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if !h.checkCSRF(r, s.CSRF) {
				h.errorPage(w, r, rq, http.StatusForbidden, "Request refused",
					"This form was not sent from this console page (its security token is missing or stale). Reload the page and try again.")
				return
			}
		}
		fn(w, r, rq)
	})
}

// checkCSRF accepts a state change only with the session's synchronizer token (form field
// "csrf" or header X-CSRF-Token) and, when the browser says where it comes from, from this
// origin.
func (h *handler) checkCSRF(r *http.Request, want string) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return false
		}
		got = r.PostFormValue("csrf")
	}
	return tokenEqual(got, want)
}

// secure reports whether the console is reached over HTTPS (its cookies are then Secure):
// the request came over HTTPS, by the connection or a trusted proxy's word
// (Config.TrustedProxies), or the public URL is an https one.
func (h *handler) secure(r *http.Request) bool {
	return h.proxies.HTTPS(r) || strings.HasPrefix(h.cfg.PublicURL, "https://")
}

// fail shows err in words: the use case's message for what the person can fix, a generic
// sentence (and a log line with the cause) for the rest.
// The status is the API's for the same error (response.Status, the table both read).
func (h *handler) message(r *http.Request, err error) (int, string) {
	switch core.ErrorCode(err) {
	case core.CodeInternal:
	case core.CodeUnavailable:
		return response.Status(err), "The database cannot be reached just now; nothing was changed. Try again in a few seconds."
	case core.CodeForbidden:
		return response.Status(err), "Your role does not allow this: " + sentence(core.ErrorMessage(err)) + " Ask an owner of the organization."
	default:
		return response.Status(err), sentence(core.ErrorMessage(err))
	}
	if errors.Is(err, context.Canceled) {
		return http.StatusServiceUnavailable, "The request was cancelled."
	}
	h.log.ErrorContext(r.Context(), "console request failed", slog.String("path", r.URL.Path), slog.Any("err", err))
	return http.StatusInternalServerError, "Something went wrong on the server; the error was logged. Try again in a moment."
}

// fieldWords name the use cases' fields as the forms do.
var fieldWords = map[string]string{
	"url": "The address", "urls": "The addresses", "name": "The name", "label": "The name", "slug": "The identifier",
	"categorySlug": "The category", "serviceUrl": "The website of the service", "description": "The description",
	"privacyPolicyUrl": "The privacy policy link", "cookiePolicyUrl": "The cookie policy link", "logoUrl": "The logo link",
	"cookieExpirationDays": "The number of days", "storefrontPassword": "The storefront password", "from": "The start date",
	"to": "The end date", "template": "The template", "position": "The position",
	"reopenLabel": "The label of the privacy settings button", "reopenPosition": "The corner", "cookieDomain": "The domain to remember the choice on",
	"gpp.approach": "The US sections (GPP)", "gpp.mspaMode": "The MSPA mode",
}

var cookieField = regexp.MustCompile(`^cookies\[(\d+)\]\.(\w+)$`)

// sentence makes a use case's message ("url: must be …") read as a sentence in the form's
// words ("The address must be …").
func sentence(s string) string {
	if field, rest, ok := strings.Cut(s, ": "); ok && !strings.Contains(field, " ") {
		if w, ok := fieldWords[field]; ok {
			s = w + " " + rest
			if strings.HasPrefix(rest, "category ") { // "categorySlug: category "x" not found"
				s = rest
			}
		} else if strings.HasPrefix(field, "tcf.") {
			// The TCF settings' messages name what is wrong ("unknown vendor 9999 (…)").
			s = rest
			if field == "tcf.publisherCountryCode" {
				s = "The publisher country: " + rest
			}
		} else if m := cookieField.FindStringSubmatch(field); m != nil {
			n, _ := strconv.Atoi(m[1])
			s = "Cookie " + strconv.Itoa(n+1) + ": its " + textfmt.Human(m[2]) + " " + rest
		}
	}
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func (h *handler) redirect(w http.ResponseWriter, r *http.Request, rq *request, to, flash string) {
	if flash != "" && rq != nil {
		if err := h.m.SetFlash(r.Context(), rq.s.ID, flash); err != nil {
			h.log.WarnContext(r.Context(), "could not keep a notice for the next page", "err", err)
		}
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
