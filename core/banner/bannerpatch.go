package banner

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/tcf"
	"golang.org/x/net/publicsuffix"
)

// Optional is a field of a partial update: Set when the client sent it, Null when it sent null.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// BannerPatch changes a banner; fields left nil (or unset) stay as they are. Colors and
// TextOverrides merge key by key, an empty text removing its override; TextTranslations merge
// by language, an empty language object removing that language.
type BannerPatch struct {
	Template             *string
	Position             *string
	Colors               map[string]string
	TextOverrides        map[string]string
	TextTranslations     map[string]map[string]string
	LogoURL              Optional[string]
	PrivacyPolicyURL     Optional[string]
	CookiePolicyURL      Optional[string]
	DefaultBehavior      *string
	CloseButtonBehavior  *string
	CookieExpirationDays *int
	GCMExcludeVendor     *bool
	// ConsentMode sets GCMExcludeVendor by its other name (advanced: true); both in one patch
	// must agree.
	ConsentMode           *string
	StorefrontIntegration *bool
	ReopenButton          *bool
	ReopenPosition        *string
	ReopenLabel           Optional[string]
	CookieDomain          Optional[string]
	// ReaskAfterRejectDays sets how long a refusal keeps the banner away; null returns to the
	// defaults of the rules' behaviours (ReaskDefault).
	ReaskAfterRejectDays Optional[int]
	// RegionRules, when not nil, replaces the banner's regional rules (an empty list removes
	// them).
	RegionRules *[]RegionRuleInput
	// TCF, when not nil, replaces the banner's TCF settings (checked by CheckTCFSettings).
	TCF *tcf.TCFSettings
	// GPP, when not nil, replaces the banner's GPP settings (checked by CheckGPPSettings).
	GPP *gpp.GPPSettings
}

func (p BannerPatch) validate() error {
	for _, c := range []struct {
		field string
		v     *string
		enum  []string
	}{
		{"template", p.Template, templates[:]},
		{"position", p.Position, positions[:]},
		{"defaultBehavior", p.DefaultBehavior, defaultBehaviors[:]},
		{"closeButtonBehavior", p.CloseButtonBehavior, closeButtonBehaviors[:]},
		{"reopenPosition", p.ReopenPosition, reopenPositions[:]},
		{"consentMode", p.ConsentMode, consentModes[:]},
	} {
		if c.v != nil && !slices.Contains(c.enum, *c.v) {
			return core.FieldErrorf(c.field, "must be one of %v", c.enum)
		}
	}
	if p.ConsentMode != nil && p.GCMExcludeVendor != nil && ConsentModeOf(*p.GCMExcludeVendor) != *p.ConsentMode {
		return core.FieldErrorf("consentMode", "%s contradicts gcmExcludeVendor %t (advanced is gcmExcludeVendor true)", *p.ConsentMode, *p.GCMExcludeVendor)
	}
	for k, v := range p.Colors {
		if !slices.Contains(colorKeys[:], k) || v == "" {
			return core.FieldErrorf("colors."+k, "unknown key or empty value")
		}
	}
	if err := validateTexts("textOverrides", p.TextOverrides); err != nil {
		return err
	}
	for lang, texts := range p.TextTranslations {
		if err := CheckLanguage("textTranslations", lang); err != nil {
			return err
		}
		if err := validateTexts("textTranslations."+lang, texts); err != nil {
			return err
		}
	}
	for _, u := range []struct {
		field string
		v     Optional[string]
	}{{"logoUrl", p.LogoURL}, {"privacyPolicyUrl", p.PrivacyPolicyURL}, {"cookiePolicyUrl", p.CookiePolicyURL}} {
		if u.v.Set && !u.v.Null {
			if err := core.ValidateHTTPURL(u.field, u.v.Value); err != nil {
				return err
			}
		}
	}
	if d := p.CookieExpirationDays; d != nil && (*d < MinCookieExpiration || *d > MaxCookieExpiration) {
		return core.FieldErrorf("cookieExpirationDays", "must be %d to %d", MinCookieExpiration, MaxCookieExpiration)
	}
	if r := p.ReaskAfterRejectDays; r.Set && !r.Null {
		if err := checkReask("reaskAfterRejectDays", &r.Value); err != nil {
			return err
		}
	}
	if l := p.ReopenLabel; l.Set && !l.Null {
		if n := utf8.RuneCountInString(strings.TrimSpace(l.Value)); n < 1 || n > MaxReopenLabel {
			return core.FieldErrorf("reopenLabel", "must be 1 to %d characters", MaxReopenLabel)
		}
		if err := core.CheckText("reopenLabel", l.Value); err != nil {
			return err
		}
	}
	return nil
}

// MaxReopenLabel bounds the reopen button's label: it is a small button.
const MaxReopenLabel = 60

var domainPattern = regexp.MustCompile(core.DomainPattern)

// CookieDomainFor checks that domain may carry the consent cookie of a site whose homepage is
// siteURL: the site's host itself or one of its parents, no higher than its registrable domain
// (a public suffix such as "co.uk" is refused, as browsers refuse it). A leading dot is
// allowed; the result is lower-case without it.
func CookieDomainFor(siteURL, domain string) (string, error) {
	d := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(domain)), ".")
	u, err := url.Parse(siteURL)
	host := ""
	if err == nil {
		host = strings.ToLower(u.Hostname())
	}
	if t := strings.TrimSpace(domain); len(t) > core.MaxDomain || !domainPattern.MatchString(t) {
		return "", core.FieldErrorf("cookieDomain", "must be a domain name such as .example.com")
	}
	if host == "" || net.ParseIP(host) != nil {
		return "", core.FieldErrorf("cookieDomain", "the site's url %q has no domain name to share a cookie across", siteURL)
	}
	if d != host && !strings.HasSuffix(host, "."+d) {
		return "", core.FieldErrorf("cookieDomain", "%q is not the site's host %q or a parent of it", d, host)
	}
	reg, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil || len(d) < len(reg) {
		return "", core.FieldErrorf("cookieDomain", "%q is a public suffix; use the site's registrable domain %q or a subdomain of it", d, reg)
	}
	return d, nil
}

func validateTexts(field string, texts map[string]string) error {
	for k, v := range texts {
		if !slices.Contains(textKeyList, k) {
			return core.FieldErrorf(field+"."+k, "unknown key, expected one of %v", textKeyList)
		}
		if err := maxLen(field+"."+k, v, MaxTranslation); err != nil {
			return err
		}
	}
	return nil
}

func (p BannerPatch) apply(b *Banner) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&b.Template, p.Template)
	set(&b.Position, p.Position)
	set(&b.DefaultBehavior, p.DefaultBehavior)
	set(&b.CloseButtonBehavior, p.CloseButtonBehavior)
	for k, v := range p.Colors {
		b.Colors[k] = v
	}
	mergeTexts(b.TextOverrides, p.TextOverrides)
	for lang, texts := range p.TextTranslations {
		if len(texts) == 0 {
			delete(b.TextTranslations, lang)
			continue
		}
		if b.TextTranslations[lang] == nil {
			b.TextTranslations[lang] = map[string]string{}
		}
		mergeTexts(b.TextTranslations[lang], texts)
	}
	for _, u := range []struct {
		dst **string
		v   Optional[string]
	}{{&b.LogoURL, p.LogoURL}, {&b.PrivacyPolicyURL, p.PrivacyPolicyURL}, {&b.CookiePolicyURL, p.CookiePolicyURL}} {
		if u.v.Set {
			if u.v.Null {
				*u.dst = nil
			} else {
				v := u.v.Value
				*u.dst = &v
			}
		}
	}
	if p.CookieExpirationDays != nil {
		b.CookieExpirationDays = *p.CookieExpirationDays
	}
	if p.GCMExcludeVendor != nil {
		b.GCMExcludeVendor = *p.GCMExcludeVendor
	}
	if p.ConsentMode != nil {
		b.GCMExcludeVendor = *p.ConsentMode == ConsentModeAdvanced
	}
	b.ConsentMode = ConsentModeOf(b.GCMExcludeVendor)
	if p.StorefrontIntegration != nil {
		b.StorefrontIntegration = *p.StorefrontIntegration
	}
	if p.ReopenButton != nil {
		b.ReopenButton = *p.ReopenButton
	}
	set(&b.ReopenPosition, p.ReopenPosition)
	if r := p.ReaskAfterRejectDays; r.Set {
		b.ReaskAfterRejectDays = nil
		if !r.Null {
			v := r.Value
			b.ReaskAfterRejectDays = &v
		}
	}
	for _, u := range []struct {
		dst **string
		v   Optional[string]
	}{{&b.ReopenLabel, p.ReopenLabel}, {&b.CookieDomain, p.CookieDomain}} {
		if u.v.Set {
			if u.v.Null {
				*u.dst = nil
			} else {
				v := u.v.Value
				*u.dst = &v
			}
		}
	}
}

func mergeTexts(dst, src map[string]string) {
	for k, v := range src {
		if v == "" {
			delete(dst, k)
		} else {
			dst[k] = v
		}
	}
}
