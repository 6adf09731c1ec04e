package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/tcf"
)

// nullable is a PATCH field that may be absent (unchanged), null (cleared) or a value.
type nullable[T any] struct {
	Sent, Null bool
	Value      T
}

// UnmarshalJSON records that the field was sent and whether it was null.
func (o *nullable[T]) UnmarshalJSON(b []byte) error {
	o.Sent = true
	if bytes.Equal(b, []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Schema describes the field as its value type, nullable.
func (o nullable[T]) Schema(r huma.Registry) *huma.Schema {
	s := r.Schema(reflect.TypeOf(o.Value), true, "")
	s.Nullable = true
	return s
}

func (o nullable[T]) core() banner.Optional[T] {
	return banner.Optional[T]{Set: o.Sent, Null: o.Null, Value: o.Value}
}

// colorsIn are the banner colors a PATCH may set.
type colorsIn struct {
	Primary      *string `json:"primary,omitempty" nullable:"false" minLength:"1"`
	Background   *string `json:"background,omitempty" nullable:"false" minLength:"1"`
	Text         *string `json:"text,omitempty" nullable:"false" minLength:"1"`
	AcceptButton *string `json:"acceptButton,omitempty" nullable:"false" minLength:"1"`
	RejectButton *string `json:"rejectButton,omitempty" nullable:"false" minLength:"1"`
}

// textsIn are the banner texts a PATCH may set, keyed as core.TextKeys() (the contract's six
// and the runtime's other texts, taken from the built-in English texts); an empty string
// removes an override. Core validates the keys and lengths; the schema documents them.
type textsIn map[string]string

// Schema lists every text key with its limit, and no other.
func (textsIn) Schema(huma.Registry) *huma.Schema {
	props := make(map[string]*huma.Schema, len(banner.TextKeys()))
	for _, k := range banner.TextKeys() {
		props[k] = &huma.Schema{Type: huma.TypeString, MaxLength: &maxText}
	}
	return &huma.Schema{Type: huma.TypeObject, Properties: props, AdditionalProperties: false,
		Description: "Placeholders in braces ({service}, {category}) are replaced by the runtime."}
}

var maxText = banner.MaxTranslation

func toMap(pairs ...any) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(pairs); i += 2 {
		if v := pairs[i+1].(*string); v != nil {
			m[pairs[i].(string)] = *v
		}
	}
	return m
}

func (c *colorsIn) toMap() map[string]string {
	if c == nil {
		return nil
	}
	return toMap("primary", c.Primary, "background", c.Background, "text", c.Text,
		"acceptButton", c.AcceptButton, "rejectButton", c.RejectButton)
}

type bannerPatchBody struct {
	Template              *string            `json:"template,omitempty" nullable:"false" enum:"floating,wide_bar,modal"`
	Position              *string            `json:"position,omitempty" nullable:"false" enum:"bottom_left,bottom_right,top_left,top_right,bottom,top,center"`
	Colors                *colorsIn          `json:"colors,omitempty" nullable:"false"`
	TextOverrides         textsIn            `json:"textOverrides,omitempty" nullable:"false" doc:"Merged key by key; an empty string removes an override. Besides the contract's six keys, the runtime's other texts (saveLabel, preferencesTitle, ...) may be set, so that a banner can be translated whole."`
	TextTranslations      map[string]textsIn `json:"textTranslations,omitempty" nullable:"false" doc:"Language key to texts; merged by language, an empty object removes the language."`
	LogoURL               nullable[string]   `json:"logoUrl,omitempty" format:"uri" maxLength:"500"`
	PrivacyPolicyURL      nullable[string]   `json:"privacyPolicyUrl,omitempty" format:"uri" maxLength:"500"`
	CookiePolicyURL       nullable[string]   `json:"cookiePolicyUrl,omitempty" format:"uri" maxLength:"500"`
	DefaultBehavior       *string            `json:"defaultBehavior,omitempty" nullable:"false" enum:"opt_in,opt_out,no_banner"`
	CloseButtonBehavior   *string            `json:"closeButtonBehavior,omitempty" nullable:"false" enum:"accept_all,reject_all,dismiss"`
	CookieExpirationDays  *int               `json:"cookieExpirationDays,omitempty" nullable:"false" minimum:"1" maximum:"730"`
	GCMExcludeVendor      *bool              `json:"gcmExcludeVendor,omitempty" nullable:"false"`
	ConsentMode           *string            `json:"consentMode,omitempty" nullable:"false" enum:"basic,advanced" doc:"Google Consent Mode: basic holds Google's tags until consent; advanced lets them load with every signal denied (cookieless pings) and grants what the visitor allows. The same setting as gcmExcludeVendor (advanced is true); both in one request must agree."`
	StorefrontIntegration *bool              `json:"storefrontIntegration,omitempty" nullable:"false"`
	ReopenButton          *bool              `json:"reopenButton,omitempty" nullable:"false" doc:"Show a small privacy-settings button after a decision (unless the page has its own [data-consentd-open] element)."`
	ReopenPosition        *string            `json:"reopenPosition,omitempty" nullable:"false" enum:"bottom_left,bottom_right,top_left,top_right" doc:"Corner of the reopen button."`
	ReopenLabel           nullable[string]   `json:"reopenLabel,omitempty" doc:"Text of the reopen button; null uses the visitor's language's default."`
	ReaskAfterRejectDays  nullable[int]      `json:"reaskAfterRejectDays,omitempty" doc:"Optional. After a visitor refuses (reject all), the banner stays away this many days (1 to 730), whatever cookieExpirationDays says of other decisions; then it asks again. null (the default) takes the default of each visitor's rule's behaviour: 180 days under opt_in (the EU Digital Omnibus proposal's six months, as the CNIL recommends keeping a refusal as long as a consent), 365 under opt_out (the CCPA's twelve months before asking again after an opt-out). A regional rule's own reaskAfterRejectDays wins over it. The compliance report flags a value under 180 where an opt-in rule applies in Europe."`
	CookieDomain          nullable[string]   `json:"cookieDomain,omitempty" maxLength:"254" doc:"Domain of the consent cookie, e.g. .example.com: the site's host or a parent of it, at most its registrable domain, so that a decision holds on every subdomain. null keeps the cookie on the host that set it."`
	RegionRules           *[]regionRuleIn    `json:"regionRules,omitempty" nullable:"false" maxItems:"50" doc:"Regional rules, in order; replaces the list (an empty list removes every rule). A visitor gets the most specific match: the first rule naming the visitor's subdivision, else its country, else a group holding either, else *; a visitor whose location is unknown gets the first rule naming unknown. defaultBehavior applies when none matches. The jurisdiction recorded stays that of the visitor's place, whatever the rule: gdpr (the EU, EEA, GB or CH), ccpa (the US) or none. Presets: GET /region-presets; the law behind the groups: GET /region-laws."`
	TCF                   *tcfIn             `json:"tcf,omitempty" nullable:"false" doc:"The site's IAB TCF 2.3 settings (docs/tcf.md); replaces them whole, absent fields empty. Checked against the Global Vendor List in use: an unknown or deleted vendor is a 400 naming it (tcf.vendorIds[3]: unknown vendor 9999). enabled needs the deployment's CMP ID (CONSENTD_TCF_CMP_ID)."`
	GPP                   *gppIn             `json:"gpp,omitempty" nullable:"false" doc:"The site's IAB Global Privacy Platform settings (docs/gpp.md); replaces them whole. With enabled, visitors under a US opt-out rule get __gpp with the usnat section and/or their state's own section (the twenty states the IAB defines one for, as GET /region-laws names it: gppSection), as approach says; visitors the TCF applies to the tcfeuv2 section carrying their TC string."`
}

// gppIn is the gpp object of a banner PATCH (core.GPPSettings).
type gppIn struct {
	Enabled                bool   `json:"enabled,omitempty" doc:"Turns the IAB GPP on for the visitors a section applies to."`
	MSPACoveredTransaction bool   `json:"mspaCoveredTransaction,omitempty" doc:"The publisher signed the IAB Multi-State Privacy Agreement and declares its transactions covered by it: the usnat section then applies (the MSPA's National Approach)."`
	MSPAMode               string `json:"mspaMode,omitempty" enum:"opt-out,service-provider" doc:"The MSPA mode of covered transactions (default opt-out): Opt-Out Option Mode or Service Provider Mode."`
	Approach               string `json:"approach,omitempty" enum:"both,national,state" doc:"Which US sections a US visitor's string carries (default both): national, the MSPA's National Approach (usnat alone); state, the state-specific approach (the visitor's state section alone where the IAB defines one, usnat elsewhere in the US); both (usnat and the state's section, usnat applying for an MSPA-covered site, the state's otherwise)."`
}

func (g *gppIn) core() *gpp.GPPSettings {
	if g == nil {
		return nil
	}
	return &gpp.GPPSettings{Enabled: g.Enabled, MSPACoveredTransaction: g.MSPACoveredTransaction, MSPAMode: g.MSPAMode, Approach: g.Approach}
}

// tcfIn is the tcf object of a banner PATCH (core.TCFSettings).
type tcfIn struct {
	Enabled               bool            `json:"enabled,omitempty" doc:"Turns the IAB TCF on for the visitors it applies to: an opt-in rule in the EEA, GB or CH, or an unknown location."`
	VendorIDs             []int           `json:"vendorIds,omitempty" nullable:"false" maxItems:"2000" doc:"IDs of the Global Vendor List's vendors the site works with (755 is Google Advertising Products)."`
	PublisherCountryCode  string          `json:"publisherCountryCode,omitempty" doc:"The publisher's country, ISO 3166-1 alpha-2 in upper case (FR)."`
	SpecialFeatures       []int           `json:"specialFeatures,omitempty" nullable:"false" doc:"IDs of the GVL's special features the site asks visitors to opt in to (1: precise geolocation, 2: device scanning)."`
	PublisherRestrictions []restrictionIn `json:"publisherRestrictions,omitempty" nullable:"false" maxItems:"100" doc:"Restrictions on purposes of some of the site's vendors."`
	GoogleATPIDs          []int           `json:"googleAtpIds,omitempty" nullable:"false" maxItems:"1000" doc:"Google's Additional Consent provider IDs (ad technology providers outside the GVL) the site works with; with Google's provider list loaded, one not on it is a 400 naming it (tcf.googleAtpIds[1]: unknown provider 9999)."`
	UseStacks             bool            `json:"useStacks,omitempty" doc:"The first layer shows the IAB's stacks in place of the purposes and special features they group (the fewest stacks covering the most of the site's, none claiming one the site does not use; the rest listed one by one). Off by default."`
}

// restrictionIn is a publisher restriction of a banner PATCH (core.PublisherRestriction).
type restrictionIn struct {
	PurposeID       int   `json:"purposeId" doc:"The GVL purpose restricted."`
	RestrictionType int   `json:"restrictionType" doc:"0: not allowed; 1: require consent; 2: require legitimate interest (never for purposes 1 and 3 to 6)."`
	VendorIDs       []int `json:"vendorIds" doc:"The site's vendors it applies to (each in tcf.vendorIds)."`
}

// TransformSchema declares the region codes core knows (core.RegionCodes, its one source) as
// the enum of regions' items.
func (regionRuleIn) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if v := s.Properties["regions"]; v != nil && v.Items != nil {
		v.Items.Enum = nil
		for _, c := range core.RegionCodes() {
			v.Items.Enum = append(v.Items.Enum, c)
		}
		v.Items.PrecomputeMessages()
	}
	return s
}

// TransformSchema declares the form core requires of publisherCountryCode, its pattern from core.
func (tcfIn) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if v := s.Properties["publisherCountryCode"]; v != nil {
		v.Pattern = tcf.CountryCodePattern
		v.PrecomputeMessages()
	}
	return s
}

func (t *tcfIn) core() *tcf.TCFSettings {
	if t == nil {
		return nil
	}
	out := &tcf.TCFSettings{Enabled: t.Enabled, VendorIDs: t.VendorIDs, PublisherCountryCode: t.PublisherCountryCode,
		SpecialFeatures: t.SpecialFeatures, GoogleATPIDs: t.GoogleATPIDs, UseStacks: t.UseStacks}
	for _, r := range t.PublisherRestrictions {
		out.PublisherRestrictions = append(out.PublisherRestrictions,
			tcf.PublisherRestriction{PurposeID: r.PurposeID, RestrictionType: r.RestrictionType, VendorIDs: r.VendorIDs})
	}
	return out
}

// regionRuleIn is a regional rule of a banner PATCH (core.RegionRuleInput).
type regionRuleIn struct {
	Regions              []string `json:"regions" minItems:"1" maxItems:"300" doc:"ISO 3166-1 alpha-2 countries (FR), ISO 3166-2 subdivisions (US-CA; every US and Canadian one), the groups EU, EEA and US-STATE-LAWS, * for every other known place, unknown for a visitor whose location is unknown."`
	DefaultBehavior      string   `json:"defaultBehavior" enum:"opt_in,opt_out,no_banner" doc:"What the banner does before a decision for these visitors."`
	HonorGPC             *bool    `json:"honorGpc,omitempty" nullable:"false" doc:"A Global Privacy Control signal turns the sale category off and is recorded as a request not to sell. Default true."`
	DoNotSellLink        *bool    `json:"doNotSellLink,omitempty" nullable:"false" doc:"The visitor may opt out of sale and sharing; refusing the sale category is recorded as a request not to sell. Default true under opt_out, false otherwise."`
	RejectOnFirstLayer   *bool    `json:"rejectOnFirstLayer,omitempty" nullable:"false" doc:"The first layer offers reject beside accept. Default true."`
	ReaskAfterRejectDays *int     `json:"reaskAfterRejectDays,omitempty" nullable:"false" minimum:"1" maximum:"730" doc:"Optional. After a refusal, the banner stays away this many days for these visitors; absent: the banner's reaskAfterRejectDays, else this rule's behaviour's default (opt_in 180, opt_out 365)."`
}

// TransformSchema declares the form core requires of cookieDomain, its pattern from core.
func (bannerPatchBody) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if v := s.Properties["cookieDomain"]; v != nil {
		v.Pattern = core.DomainPattern
		v.PrecomputeMessages()
	}
	return s
}

func (h *handlers) registerBanner(api huma.API) {
	type bannerOutput struct{ Body *banner.Banner }

	huma.Register(api, op("getBanner", http.MethodGet, "/sites/{id}/banner", "Get the banner configuration", "Banner", 0),
		func(ctx context.Context, in *SiteIDPath) (*bannerOutput, error) {
			b, err := h.m.Banner(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &bannerOutput{b}, nil
		})

	huma.Register(api, op("updateBanner", http.MethodPatch, "/sites/{id}/banner", "Update the banner configuration", "Banner", 0),
		func(ctx context.Context, in *struct {
			SiteIDPath
			Body bannerPatchBody
		}) (*bannerOutput, error) {
			p := in.Body
			patch := banner.BannerPatch{
				Template: p.Template, Position: p.Position, Colors: p.Colors.toMap(), TextOverrides: p.TextOverrides,
				LogoURL: p.LogoURL.core(), PrivacyPolicyURL: p.PrivacyPolicyURL.core(), CookiePolicyURL: p.CookiePolicyURL.core(),
				DefaultBehavior: p.DefaultBehavior, CloseButtonBehavior: p.CloseButtonBehavior,
				CookieExpirationDays: p.CookieExpirationDays, GCMExcludeVendor: p.GCMExcludeVendor, ConsentMode: p.ConsentMode,
				StorefrontIntegration: p.StorefrontIntegration, ReopenButton: p.ReopenButton, ReopenPosition: p.ReopenPosition,
				ReopenLabel: p.ReopenLabel.core(), CookieDomain: p.CookieDomain.core(), TCF: p.TCF.core(), GPP: p.GPP.core(),
				ReaskAfterRejectDays: p.ReaskAfterRejectDays.core(),
			}
			if p.RegionRules != nil {
				rules := make([]banner.RegionRuleInput, len(*p.RegionRules))
				for i, r := range *p.RegionRules {
					rules[i] = banner.RegionRuleInput{Regions: r.Regions, DefaultBehavior: r.DefaultBehavior,
						HonorGPC: r.HonorGPC, DoNotSellLink: r.DoNotSellLink, RejectOnFirstLayer: r.RejectOnFirstLayer, ReaskAfterRejectDays: r.ReaskAfterRejectDays}
				}
				patch.RegionRules = &rules
			}
			if p.TextTranslations != nil {
				patch.TextTranslations = map[string]map[string]string{}
				for lang, t := range p.TextTranslations {
					if t == nil {
						t = textsIn{}
					}
					patch.TextTranslations[lang] = t
				}
			}
			b, err := h.m.PatchBanner(ctx, orgOf(ctx), in.ID, patch)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &bannerOutput{b}, nil
		})

	o := op("setScriptBlocking", http.MethodPut, "/sites/{id}/script-blocking", "Turn site-wide script blocking on or off", "Scanner", 0)
	o.Description = "A change of state raises the banner's consentVersion so that visitors see the banner again; setting the current state changes nothing."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body struct {
			Enabled bool `json:"enabled"`
		}
	}) (*successBody, error) {
		if err := h.m.SetScriptBlocking(ctx, orgOf(ctx), in.ID, in.Body.Enabled); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})
}
