// Package bannerjs serves the banner runtime: the script a site embeds, first thing in <head>,
// to show its consent banner and enforce the visitor's choice in the browser.
//
// The readable sources are embedded ES modules with explicit imports, and the stylesheets they
// import (boot.js is the runtime's entry and lists them; state.js holds the state they share).
// At first use one function (build, build.go) bundles each script of a list (bundles: the
// runtime; its lazily loaded part, more.js, with the preferences, the declaration, the choice,
// the reopen button and the blocked iframe's placeholder, which the first view does not need;
// the TCF module and stub; the GPP API) with esbuild, the stylesheets minified and inlined (the
// runtime adopts them into its Shadow DOMs as constructable stylesheets, which strict
// Content-Security-Policies allow) and what the runtime takes from core in a module the build
// makes up (consentd:core); minifies, stamps the version and gzip-compresses each once, and
// every request is answered from memory with a strong ETag. The runtime names the version of
// the lazily loaded part it loads (/api/v1/public/banner-more.js?v=<MoreVersion>, immutable),
// so that both always match. Each pure module has a node unit test beside it (*.test.mjs, run
// by TestNodeUnit).
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
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/consentd/consentd/core"
)

const (
	// shortCache applies when the URL carries no version (or an outdated one): browsers revalidate
	// with the ETag after five minutes.
	shortCache = "public, max-age=300"
	// longCache applies to the versioned URL the setup snippet emits.
	longCache = "public, max-age=31536000, immutable"
)

func get() *bundle     { return bundled("runtime") }
func getMore() *bundle { return bundled("more") }

// Gzip compresses b at the best level, for what is compressed once and served many times
// (the runtime's files, the loaders). klauspost/compress's best level, not the standard
// library's: on the first view's benchmark loader (33 KB) it is about 50 bytes smaller
// (12,234 against 12,286), bytes the first view's 12,288-byte budget counts.
func Gzip(b []byte) []byte {
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

// MoreVersion returns a short hash of the lazily loaded part, which the runtime loads from
// `/api/v1/public/banner-more.js?v=<MoreVersion()>`.
func MoreVersion() string { return getMore().version }

// MoreScript returns the served (minified) lazily loaded part, uncompressed.
func MoreScript() []byte { return bytes.Clone(getMore().plain) }

// Handler serves the banner runtime on any request path ending in "/banner.js", and its lazily
// loaded part on any ending in "/banner-more.js" (core.PublicRuntime and
// core.PublicRuntimeMore; so it works mounted under http.StripPrefix("/api/v1/public", ...) as
// well as at the full path); other paths get 404 and methods other than GET and HEAD get 405.
//
// Responses carry a strong ETag (If-None-Match gives 304), gzip when the client accepts it,
// `Access-Control-Allow-Origin: *`, and `Cache-Control: public, max-age=31536000, immutable`
// when `?v=` names the script's current version, a five-minute max-age otherwise.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

// served is the bundle a request path names, nil for none.
func served(p string) *bundle {
	for name, b := range map[string]func() *bundle{core.PublicRuntime: get, core.PublicRuntimeMore: getMore} {
		if p == name || strings.HasSuffix(p, "/"+name) {
			return b()
		}
	}
	return nil
}

func serve(w http.ResponseWriter, r *http.Request) {
	b := served(r.URL.Path)
	if b == nil {
		http.NotFound(w, r)
		return
	}
	serveBundle(w, r, b)
}

// serveBundle answers r with the built script b (the runtime or the TCF module).
func serveBundle(w http.ResponseWriter, r *http.Request, b *bundle) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
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
	gz := AcceptsGzip(r.Header.Get("Accept-Encoding"))
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

// AcceptsGzip reports whether an Accept-Encoding header allows gzip (q=0 refuses it; "*" counts).
func AcceptsGzip(header string) bool {
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
