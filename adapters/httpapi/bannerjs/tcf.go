package bannerjs

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"github.com/consentd/consentd/core"
)

// The IAB TCF side of the runtime, apart from banner.js so that sites without the TCF load
// nothing of it:
//   - tcfstub.js, the standard __tcfapi stub, which the per-site loader inlines in front of the
//     runtime only where the TCF applies to the visitor (TCFStub);
//   - the TCF module (tcf.js, the CMP API and the TCF layers, styled by tcf.css; tcfstring.js
//     encodes the TC and AC strings), served at /api/v1/public/tcf.js?v=<TCFVersion>
//     like banner.js: site-independent, immutable per version, gzip, strong ETag (TCFHandler).

const (
	// tcfModulePlaceholder and tcfConfPlaceholder are where the built stub takes the module's
	// and the configuration's paths: the configuration's differs per language, and the stub is
	// built once.
	tcfModulePlaceholder = `"__CONSENTD_TCF_MODULE__"`
	tcfConfPlaceholder   = `"__CONSENTD_TCF_CONF__"`
)

func getTCF() *bundle { return bundled("tcf") }

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
	module := "../" + core.PublicTCFModule + "?v=" + getTCF().version
	conf := core.PublicTCFConfig
	if lang != "" {
		conf += "?lang=" + url.QueryEscape(lang)
	}
	s := bytes.Replace(bundled("tcfstub").plain, []byte(tcfModulePlaceholder), quote(module), 1)
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
