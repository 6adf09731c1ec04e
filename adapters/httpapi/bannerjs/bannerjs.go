// Package bannerjs serves the banner runtime: the script a site embeds, first thing in <head>,
// to show its consent banner and enforce the visitor's choice in the browser.
//
// The readable sources are embedded: the runtime's modules (Modules: policy.js applies the
// server's decision, guard.js enforces it, ui.js shows the banner, boot.js holds the shared
// state and starts the others), banner.css, and the lazily loaded part (MoreModules: more.js,
// with banner-more.css): the preferences, the declaration, the choice, the reopen button and
// the blocked iframe's placeholder, which the first view does not need. At first use the
// modules are joined (the runtime into one closure, the lazily loaded part into one function of
// the runtime's internals), what the runtime takes from core is put in their placeholders (the
// vendors' consent APIs, the public resources' names), the stylesheets are minified and inlined
// into the scripts (the runtime adopts them into its Shadow DOMs as constructable stylesheets,
// which strict Content-Security-Policies allow), the scripts are minified and gzip-compressed
// once, and every request is answered from memory with a strong ETag. The runtime names the
// version of the lazily loaded part it loads (/api/v1/public/banner-more.js?v=<MoreVersion>,
// immutable), so that both always match.
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
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/tdewolff/minify/v2"

	"github.com/consentd/consentd/core"
	cssmin "github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"
)

//go:embed policy.js guard.js ui.js boot.js more.js banner.css banner-more.css
var sources embed.FS

// Modules are the runtime's modules in the order the build joins them. Each declares functions
// and its own state; boot.js, last, holds the shared state and starts the others.
var Modules = []string{"policy.js", "guard.js", "ui.js", "boot.js"}

// MoreModules are the modules of the lazily loaded part (core.PublicRuntimeMore), joined in one
// function of the first view's internals (see more.js).
var MoreModules = []string{"more.js"}

// joinModules joins modules into the text between head and tail.
func joinModules(read func(string) ([]byte, error), modules []string, head, tail string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(head)
	for _, m := range modules {
		src, err := read(m)
		if err != nil {
			return nil, err
		}
		b.Write(src)
		b.WriteString("\n")
	}
	b.WriteString(tail)
	return b.Bytes(), nil
}

const (
	// mainHead and mainTail make the runtime one closure.
	mainHead = "(function () {\n'use strict';\n"
	mainTail = "})();\n"
	// moreHead and moreTail make the lazily loaded part a function the first view calls with its
	// internals, once it has checked the version.
	moreHead = "window.__consentdMore = { v: " + versionPlaceholder + ", f: function (R) {\n'use strict';\n"
	moreTail = "} };\n"
)

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
		`"__CONSENTD_PUBLIC_MORE__"`:        quote(core.PublicRuntimeMore),
	}, nil
}

const (
	cssPlaceholder         = `"__CONSENTD_CSS__"`
	moreCSSPlaceholder     = `"__CONSENTD_CSS_MORE__"`
	versionPlaceholder     = `"__CONSENTD_VERSION__"`
	moreVersionPlaceholder = `"__CONSENTD_MORE_VERSION__"`
	// shortCache applies when the URL carries no version (or an outdated one): browsers revalidate
	// with the ETag after five minutes.
	shortCache = "public, max-age=300"
	// longCache applies to the versioned URL the setup snippet emits.
	longCache = "public, max-age=31536000, immutable"
)

// bundle is a built script in both encodings.
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
	built     bundle // the runtime (core.PublicRuntime)
	builtMore bundle // its lazily loaded part (core.PublicRuntimeMore)
)

func get() *bundle {
	buildOnce.Do(func() { builtMore = buildMore(); built = build(builtMore.version) })
	return &built
}

func getMore() *bundle {
	get()
	return &builtMore
}

// build assembles the served runtime, which loads the lazily loaded part of version more. A
// minifier error (which the package tests rule out for the embedded sources) falls back to the
// readable sources rather than failing the service.
func build(more string) bundle {
	jsSrc, err1 := joinModules(sources.ReadFile, Modules, mainHead, mainTail)
	cssSrc, err2 := sources.ReadFile("banner.css")
	if err1 != nil || err2 != nil {
		// Unreachable: the files are embedded at compile time.
		jsSrc = []byte("console.error('consentd: banner runtime missing from build')")
	}
	jsSrc = bytes.ReplaceAll(jsSrc, []byte(moreVersionPlaceholder), quote(more))
	return finish(jsSrc, cssPlaceholder, cssSrc)
}

// buildMore assembles the lazily loaded part, with banner-more.css.
func buildMore() bundle {
	jsSrc, err1 := joinModules(sources.ReadFile, MoreModules, moreHead, moreTail)
	cssSrc, err2 := sources.ReadFile("banner-more.css")
	if err1 != nil || err2 != nil {
		// Unreachable: the files are embedded at compile time.
		jsSrc = []byte("console.error('consentd: banner module missing from build')")
	}
	return finish(jsSrc, moreCSSPlaceholder, cssSrc)
}

// finish puts core's values and the stylesheet cssSrc (at the placeholder css) into jsSrc,
// minifies it (the readable sources when the minifier fails), stamps the version and compresses.
func finish(jsSrc []byte, css string, cssSrc []byte) bundle {
	out, minified := assemble(jsSrc, css, cssSrc, true)
	if !minified {
		out, _ = assemble(jsSrc, css, cssSrc, false)
	}
	b := bundle{plain: out, minified: minified}
	sum := sha256.Sum256(out)
	b.version = hex.EncodeToString(sum[:6])
	// The version is part of the script (window.consentd.version) and of the ETag.
	b.plain = bytes.ReplaceAll(out, []byte(versionPlaceholder), quote(b.version))
	sum = sha256.Sum256(b.plain)
	b.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	b.gzETag = `"` + hex.EncodeToString(sum[:12]) + `-gz"`
	b.gz = Gzip(b.plain)
	return b
}

// assemble inlines the stylesheet cssSrc into the script at the placeholder css (see
// stylesheets), minifying both when min is true. It reports whether minification succeeded.
func assemble(jsSrc []byte, css string, cssSrc []byte, min bool) ([]byte, bool) {
	values, err := coreValues()
	if err != nil {
		return nil, false
	}
	for k, v := range values {
		jsSrc = bytes.ReplaceAll(jsSrc, []byte(k), v)
	}
	var m *minify.M
	if min {
		m = minify.New()
		m.AddFunc("text/css", cssmin.Minify)
		m.AddFunc("text/javascript", js.Minify)
	}
	c, err := stylesheets(cssSrc, m)
	if err != nil {
		return nil, false
	}
	jsSrc = bytes.ReplaceAll(jsSrc, []byte(css), c)
	if !min {
		return jsSrc, true
	}
	j, err := m.Bytes("text/javascript", jsSrc)
	if err != nil {
		return nil, false
	}
	return j, true
}

// sheetLine starts a separately served sheet in a stylesheet: "/* sheet: NAME */" on a line.
var sheetLine = regexp.MustCompile(`(?m)^/\* sheet: ([a-z_]+) \*/\n`)

// stylesheets renders the stylesheet src as a JavaScript value, minified by m when m is not nil:
// a string, or, when src has "sheet:" lines, an object with its rules before the first (key "b")
// and those of each sheet under its name, which the runtime parses only when it needs them (the
// banner's templates: a first view parses only the chosen one's rules).
func stylesheets(src []byte, m *minify.M) ([]byte, error) {
	text := func(b []byte) (string, error) {
		if m == nil {
			return string(b), nil
		}
		c, err := m.Bytes("text/css", b)
		return string(c), err
	}
	at := sheetLine.FindAllSubmatchIndex(src, -1)
	if len(at) == 0 {
		s, err := text(src)
		return quote(s), err
	}
	var out bytes.Buffer
	out.WriteString("{")
	name, from := "b", 0
	for i := 0; i <= len(at); i++ {
		end := len(src)
		if i < len(at) {
			end = at[i][0]
		}
		s, err := text(src[from:end])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString(",")
		}
		out.Write(quote(name))
		out.WriteString(":")
		out.Write(quote(s))
		if i < len(at) {
			name, from = string(src[at[i][2]:at[i][3]]), at[i][1]
		}
	}
	out.WriteString("}")
	return out.Bytes(), nil
}

// quote renders s as a JavaScript string literal.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

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
