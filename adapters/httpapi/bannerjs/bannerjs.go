// Package bannerjs serves the banner runtime: the script a site embeds, first thing in <head>,
// to show its consent banner and enforce the visitor's choice in the browser.
//
// The readable sources are embedded: the runtime's modules (Modules: policy.js applies the
// server's decision, guard.js enforces it, ui.js shows the banner, boot.js holds the shared
// state and starts the others), banner.css and banner-more.css. At first use the modules are
// joined into one closure, what the runtime takes from core is put in their placeholders
// (the vendors' consent APIs, the public resources' names), the stylesheets are minified and
// inlined into the script (the runtime adopts it into its Shadow DOM as a constructable
// stylesheet, which strict Content-Security-Policies allow), the script is minified and
// gzip-compressed once, and every request is answered from memory with a strong ETag.
//
// The same code is served two ways: here, at the immutable /api/v1/public/banner.js?v=<Version>
// (older setup snippets), and by the HTTP adapter's per-site loader
// (/api/v1/public/{projectKey}/loader.js), which puts the site's configuration in front of
// Script() so that blocking is armed before the parser reaches the page's other tags.
//
// What a site can use (see boot.js and docs/banner.md for the details):
//   - markup: <script type="text/plain" data-category="statistics" src="…"> (several categories
//     separated by spaces must all be allowed; data-type restores a non-classic type such as
//     module) and <iframe data-src="…" data-category="marketing" data-service="slug">, which
//     shows a placeholder with an allow button while blocked; [data-consentd-open] elements open
//     the preferences; <div data-consentd-declaration> is filled with the cookie declaration and
//     the visitor's choice;
//   - window.consentd: getConsent(), acceptAll(), rejectAll(), showPreferences(),
//     blockingRuleFor(url), heldUnmarked, timing(), version; a bubbling `consentd:change` event
//     on document with the getConsent() value as detail;
//   - texts: the configuration carries them in the visitor's language (built-in texts under the
//     site's textOverrides and textTranslations); the runtime holds none of its own.
package bannerjs

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tdewolff/minify/v2"

	"github.com/consentd/consentd/core"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"
)

//go:embed policy.js guard.js ui.js boot.js banner.css banner-more.css
var sources embed.FS

// Modules are the runtime's modules in the order the build joins them. Each declares functions
// and its own state; boot.js, last, holds the shared state and starts the others.
var Modules = []string{"policy.js", "guard.js", "ui.js", "boot.js"}

// joinModules joins the runtime's modules into the closure the served script is.
func joinModules(read func(string) ([]byte, error)) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("(function () {\n'use strict';\n")
	for _, m := range Modules {
		src, err := read(m)
		if err != nil {
			return nil, err
		}
		b.Write(src)
		b.WriteString("\n")
	}
	b.WriteString("})();\n")
	return b.Bytes(), nil
}

// coreValues are the placeholders of the modules and what the build puts there from core.
func coreValues() (map[string][]byte, error) {
	vendors, err := json.Marshal(core.VendorConsents())
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		// The vendors' consent APIs, for the defaults the runtime sends before it has a configuration.
		`"__CONSENTD_VENDORS__"`: vendors,
		// The site's public resources the runtime fetches.
		`"__CONSENTD_PUBLIC_CONFIG__"`:      quote(core.PublicConfigPath),
		`"__CONSENTD_PUBLIC_CONSENT__"`:     quote(core.PublicConsentPath),
		`"__CONSENTD_PUBLIC_DECLARATION__"`: quote(core.PublicDeclaration),
	}, nil
}

const (
	cssPlaceholder     = `"__CONSENTD_CSS__"`
	moreCSSPlaceholder = `"__CONSENTD_CSS_MORE__"`
	versionPlaceholder = `"__CONSENTD_VERSION__"`
	// shortCache applies when the URL carries no version (or an outdated one): browsers revalidate
	// with the ETag after five minutes.
	shortCache = "public, max-age=300"
	// longCache applies to the versioned URL the setup snippet emits.
	longCache = "public, max-age=31536000, immutable"
)

// bundle is the built script in both encodings.
type bundle struct {
	version  string
	plain    []byte
	gz       []byte
	etag     string // strong ETag of plain
	gzETag   string // strong ETag of gz (another representation, so another validator)
	minified bool
}

var (
	buildOnce sync.Once
	built     bundle
)

func get() *bundle {
	buildOnce.Do(func() { built = build() })
	return &built
}

// build assembles the served script. A minifier error (which the package tests rule out for the
// embedded sources) falls back to the readable sources rather than failing the service.
func build() bundle {
	jsSrc, err1 := joinModules(sources.ReadFile)
	cssSrc, err2 := sources.ReadFile("banner.css")
	moreSrc, err3 := sources.ReadFile("banner-more.css")
	if err1 != nil || err2 != nil || err3 != nil {
		// Unreachable: the files are embedded at compile time.
		jsSrc = []byte("console.error('consentd: banner runtime missing from build')")
	}
	out, minified := assemble(jsSrc, cssSrc, moreSrc, true)
	if !minified {
		out, _ = assemble(jsSrc, cssSrc, moreSrc, false)
	}
	b := bundle{plain: out, minified: minified}
	sum := sha256.Sum256(out)
	b.version = hex.EncodeToString(sum[:6])
	// The version is part of the script (window.consentd.version) and of the ETag.
	b.plain = bytes.ReplaceAll(out, []byte(versionPlaceholder), quote(b.version))
	sum = sha256.Sum256(b.plain)
	b.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	b.gzETag = `"` + hex.EncodeToString(sum[:12]) + `-gz"`
	b.gz = compress(b.plain)
	return b
}

// assemble inlines the stylesheets into the script, minifying all when min is true. It
// reports whether minification succeeded.
func assemble(jsSrc, cssSrc, moreSrc []byte, min bool) ([]byte, bool) {
	values, err := coreValues()
	if err != nil {
		return nil, false
	}
	for k, v := range values {
		jsSrc = bytes.ReplaceAll(jsSrc, []byte(k), v)
	}
	if min {
		m := minify.New()
		m.AddFunc("text/css", css.Minify)
		m.AddFunc("text/javascript", js.Minify)
		c, err := m.Bytes("text/css", cssSrc)
		if err != nil {
			return nil, false
		}
		mc, err := m.Bytes("text/css", moreSrc)
		if err != nil {
			return nil, false
		}
		j := bytes.ReplaceAll(jsSrc, []byte(cssPlaceholder), quote(string(c)))
		j = bytes.ReplaceAll(j, []byte(moreCSSPlaceholder), quote(string(mc)))
		j, err = m.Bytes("text/javascript", j)
		if err != nil {
			return nil, false
		}
		return j, true
	}
	j := bytes.ReplaceAll(jsSrc, []byte(cssPlaceholder), quote(string(cssSrc)))
	return bytes.ReplaceAll(j, []byte(moreCSSPlaceholder), quote(string(moreSrc))), true
}

// quote renders s as a JavaScript string literal.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func compress(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // valid level: no error
	_, _ = zw.Write(b)                                       // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return buf.Bytes()
}

// Version returns a short hash of the served script, for the `?v=` parameter of versioned,
// immutable URLs (`/api/v1/public/banner.js?v=<Version()>`).
func Version() string { return get().version }

// Script returns the served (minified) script, uncompressed.
func Script() []byte { return bytes.Clone(get().plain) }

// Handler serves the banner runtime on any request path ending in "/banner.js" (so it works
// mounted under http.StripPrefix("/api/v1/public", ...) as well as at the full path); other
// paths get 404 and methods other than GET and HEAD get 405.
//
// Responses carry a strong ETag (If-None-Match gives 304), gzip when the client accepts it,
// `Access-Control-Allow-Origin: *`, and `Cache-Control: public, max-age=31536000, immutable`
// when `?v=` names the current Version(), a five-minute max-age otherwise.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/banner.js") && r.URL.Path != "banner.js" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	b := get()
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == b.version {
		h.Set("Cache-Control", longCache)
	} else {
		h.Set("Cache-Control", shortCache)
	}
	body, etag := b.plain, b.etag
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		body, etag = b.gz, b.gzETag
	}
	h.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body) // the client went away: nothing to do
}

// etagMatch applies If-None-Match's weak comparison (RFC 9110 section 13.1.2) to a list of tags.
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip (q=0 refuses it; "*" counts).
func acceptsGzip(header string) bool {
	gzip, star := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				continue
			}
			q = f
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "gzip", "x-gzip":
			gzip = q
		case "*":
			star = q
		}
	}
	if gzip >= 0 {
		return gzip > 0
	}
	return star > 0
}
