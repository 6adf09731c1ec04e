package bannerjs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"

	"github.com/consentd/consentd/core"
)

// The IAB TCF side of the runtime, apart from banner.js so that sites without the TCF load
// nothing of it:
//   - tcfstub.js, the standard __tcfapi stub, which the per-site loader inlines in front of the
//     runtime only where the TCF applies to the visitor (TCFStub);
//   - the TCF module (TCFModules: tcfstring.js encodes the TC and AC strings, tcf.js is the CMP
//     API and the TCF layers, styled by tcf.css), served at /api/v1/public/tcf.js?v=<TCFVersion>
//     like banner.js: site-independent, immutable per version, gzip, strong ETag (TCFHandler).

//go:embed tcfstub.js tcfstring.js tcf.js tcf.css
var tcfSources embed.FS

// TCFModules are the TCF module's sources in the order the build joins them.
var TCFModules = []string{"tcfstring.js", "tcf.js"}

const (
	tcfCSSPlaceholder    = `"__CONSENTD_TCF_CSS__"`
	tcfModulePlaceholder = `"__CONSENTD_TCF_MODULE__"`
	tcfConfPlaceholder   = `"__CONSENTD_TCF_CONF__"`
)

var (
	tcfOnce  sync.Once
	tcfBuilt bundle
	tcfStub  []byte
)

func getTCF() *bundle {
	tcfOnce.Do(func() { tcfBuilt, tcfStub = buildTCF() })
	return &tcfBuilt
}

// buildTCF builds the TCF module and the stub, minified (the readable sources if the minifier
// fails, which the package tests rule out).
func buildTCF() (bundle, []byte) {
	var src bytes.Buffer
	src.WriteString("(function () {\n'use strict';\n")
	for _, m := range TCFModules {
		b, _ := tcfSources.ReadFile(m) // embedded: cannot fail
		src.Write(b)
		src.WriteString("\n")
	}
	src.WriteString("})();\n")
	style, _ := tcfSources.ReadFile("tcf.css")
	stub, _ := tcfSources.ReadFile("tcfstub.js")
	m := minify.New()
	m.AddFunc("text/css", css.Minify)
	m.AddFunc("text/javascript", js.Minify)
	minified := true
	if c, err := m.Bytes("text/css", style); err == nil {
		style = c
	} else {
		minified = false
	}
	out := bytes.ReplaceAll(src.Bytes(), []byte(tcfCSSPlaceholder), quote(string(style)))
	if j, err := m.Bytes("text/javascript", out); err == nil {
		out = j
	} else {
		minified = false
	}
	if j, err := m.Bytes("text/javascript", stub); err == nil {
		stub = j
	} else {
		minified = false
	}
	b := bundle{minified: minified}
	sum := sha256.Sum256(out)
	b.version = hex.EncodeToString(sum[:6])
	b.plain = bytes.ReplaceAll(out, []byte(versionPlaceholder), quote(b.version))
	sum = sha256.Sum256(b.plain)
	b.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	b.gzETag = `"` + hex.EncodeToString(sum[:12]) + `-gz"`
	b.gz = Gzip(b.plain)
	return b, stub
}

// TCFVersion returns a short hash of the TCF module, for its immutable URL's ?v=.
func TCFVersion() string { return getTCF().version }

// TCFScript returns the served (minified) TCF module, uncompressed.
func TCFScript() []byte { return bytes.Clone(getTCF().plain) }

// TCFScriptGzip returns the TCF module as served gzip-compressed.
func TCFScriptGzip() []byte { return bytes.Clone(getTCF().gz) }

// TCFStub returns the __tcfapi stub for a site's loader: it loads the current TCF module and
// fetches the site's TCF configuration in lang, both at URLs relative to the loader's own
// (core.PublicPath of core.PublicLoader), so that they follow whatever origin and path prefix
// the site reaches consentd at.
func TCFStub(lang string) []byte {
	getTCF()
	module := "../" + core.PublicTCFModule + "?v=" + tcfBuilt.version
	conf := core.PublicTCFConfig
	if lang != "" {
		conf += "?lang=" + url.QueryEscape(lang)
	}
	s := bytes.Replace(tcfStub, []byte(tcfModulePlaceholder), quote(module), 1)
	return bytes.Replace(s, []byte(tcfConfPlaceholder), quote(conf), 1)
}

// TCFHandler serves the TCF module on any request path ending in "/tcf.js", as Handler serves
// banner.js: strong ETag, gzip when accepted, any origin, a year's immutable caching when ?v=
// names TCFVersion(), five minutes otherwise.
func TCFHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/"+core.PublicTCFModule) && r.URL.Path != core.PublicTCFModule {
			http.NotFound(w, r)
			return
		}
		serveBundle(w, r, getTCF())
	})
}
