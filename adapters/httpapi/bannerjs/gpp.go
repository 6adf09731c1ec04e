package bannerjs

import "bytes"

// The IAB GPP side of the runtime (docs/gpp.md): gpp.js, the __gpp CMP API with its GPP string
// encoder (gppstring.js), which the per-site loader inlines in front of the runtime only where
// core gives the visitor GPP sections (GPPAPI), so that sites and visitors without them load
// nothing of it.

// gppConfPlaceholder is where the built API takes the visitor's configuration: it differs per
// visitor, and the API is built once.
const gppConfPlaceholder = `"__CONSENTD_GPP__"`

// gppScript is the built __gpp API, with the placeholder.
func gppScript() []byte { return bundled("gpp").plain }

// GPPAPI returns the __gpp API for a site's loader with conf, the JSON of the visitor's
// core.GPPConfig, in place of its configuration placeholder.
func GPPAPI(conf []byte) []byte {
	return bytes.Replace(gppScript(), []byte(gppConfPlaceholder), conf, 1)
}

// experimentPlaceholder is where the built variant picker takes the site's experiment.
const experimentPlaceholder = `"__CONSENTD_X__"`

// ExperimentScript returns the A/B test variant picker (experiment.js) for a site's loader
// with conf, the JSON of the visitor's experiment.Public, in place of its placeholder.
func ExperimentScript(conf []byte) []byte {
	return bytes.Replace(bundled("experiment").plain, []byte(experimentPlaceholder), conf, 1)
}
