package bannerjs

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/js"
)

// The IAB GPP side of the runtime (docs/gpp.md): gpp.js, the __gpp CMP API with its GPP string
// encoder, which the per-site loader inlines in front of the runtime only where core gives the
// visitor GPP sections (GPPAPI), so that sites and visitors without them load nothing of it.

//go:embed gpp.js
var gppSource []byte

const gppConfPlaceholder = `"__CONSENTD_GPP__"`

var (
	gppOnce  sync.Once
	gppBuilt []byte
)

// gppScript is gpp.js minified (the readable source if the minifier fails, which the package
// tests rule out).
func gppScript() []byte {
	gppOnce.Do(func() {
		m := minify.New()
		m.AddFunc("text/javascript", js.Minify)
		gppBuilt = gppSource
		if j, err := m.Bytes("text/javascript", gppSource); err == nil {
			gppBuilt = j
		}
	})
	return gppBuilt
}

// GPPAPI returns the __gpp API for a site's loader with conf, the JSON of the visitor's
// core.GPPConfig, in place of its configuration placeholder.
func GPPAPI(conf []byte) []byte {
	return bytes.Replace(gppScript(), []byte(gppConfPlaceholder), conf, 1)
}
