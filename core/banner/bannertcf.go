package banner

import (
	"context"
	"maps"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/tcf"
)

// TCFApplies reports whether the TCF governs a visitor under rule: the site has TCF on, the
// behaviour the visitor gets is opt_in (their regional rule's, else the banner's
// defaultBehavior), and they are in the EEA, the United Kingdom or Switzerland (InGDPRRegion)
// or their location is unknown (the strictest reading: an unknown visitor may be in Europe).
// This is the one place that decides it: the public configuration carries it (PublicConfig.TCF)
// for the loader, which inlines the __tcfapi stub only then.
func (b *Banner) TCFApplies(rule VisitorRule) bool {
	if !b.TCF.Enabled {
		return false
	}
	behavior := b.DefaultBehavior
	if r := rule.Rule; r != nil {
		behavior = r.DefaultBehavior
	}
	loc := rule.Location
	return behavior == BehaviorOptIn && (loc.Country == "" || core.InGDPRRegion(loc.Country))
}

// TCFChoices returns the deployment's TCF choices.
func (banners *Banners) TCFChoices(ctx context.Context) (*tcf.TCFChoices, error) {
	if err := core.Authorize(ctx, core.PermRead, "", ""); err != nil {
		return nil, err
	}
	g, err := banners.TCF.GVL(ctx)
	if err != nil {
		return nil, err
	}
	return &tcf.TCFChoices{CMPID: banners.TCF.Deployment.CMPID, GVL: g}, nil
}

// TCFTexts returns the TCF layers' texts in lang (English for what lang lacks), with the
// built-in accept, reject and save labels of the banner in that language.
func TCFTexts(lang string) map[string]string {
	out := maps.Clone(tcf.TcfTexts[defaultLanguage])
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, tcf.TcfTexts[strings.ToLower(lang)])
	b := builtinTexts(lang)
	for _, k := range []string{"acceptLabel", "rejectLabel", "saveLabel"} {
		out[k] = b[k]
	}
	return out
}

// TCFModuleConfig is what the TCF module fetches (GET /public/{projectKey}/tcf): the site's TCF
// configuration (TCFConfig), and what the module shows and applies besides it: its layers'
// texts in the visitor's language, the table from TCF choices to categories and Consent Mode,
// and the banner's colors.
type TCFModuleConfig struct {
	*tcf.TCFPublicConfig
	Signals tcf.TCFSignals    `json:"signals" doc:"What the TCF choices grant of consentd's categories and of Google Consent Mode (core.TCFSignalTable, documented in docs/tcf.md)."`
	Texts   map[string]string `json:"texts" doc:"The TCF layers' texts in the visitor's language."`
	Dir     string            `json:"dir,omitempty" doc:"rtl when the texts' language is written right to left: the layers are laid out mirrored. Absent for left to right."`
	Colors  map[string]string `json:"colors" doc:"The banner's colors, which the TCF layers wear."`
	// CookieDays is how long the euconsent-v2 cookie keeps a decision (TCFCookieDays).
	CookieDays int `json:"cookieDays" doc:"Days the euconsent-v2 cookie keeps the TC string: 390, the 13 months after which the TCF policy has choices asked again."`
}

// TCFModule returns the TCF module's configuration for a visitor whose runtime
// configuration is pc (its language and the banner's colors).
func TCFModule(c *tcf.TCFPublicConfig, pc *PublicConfig) *TCFModuleConfig {
	out := &TCFModuleConfig{TCFPublicConfig: c, Signals: tcf.TCFSignalTable(), Texts: TCFTexts(pc.Lang), Dir: Dir(pc.Lang), Colors: map[string]string{}, CookieDays: tcf.TCFCookieDays}
	if pc.Banner != nil && pc.Banner.Colors != nil {
		out.Colors = pc.Banner.Colors
	}
	return out
}
