package tcf

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// The IAB Transparency & Consent Framework (TCF 2.3, issue #29; docs/tcf.md). The server keeps
// the Global Vendor List (GVL) and decides, for a site and a visitor, whether the TCF applies
// (Banner.TCFApplies) and what the TCF module shows (TCFPublicConfig); the runtime applies it.

// TCF limits and fixed values.
const (
	// GVLSpecificationVersion is the GVL format consentd reads (v3, TCF 2.2 and later).
	GVLSpecificationVersion = 3
	// MinCMPID and MaxCMPID bound a CMP ID: IAB Europe assigns IDs from 2 (the reference
	// library refuses 0 and 1), the TC string holds 12 bits.
	MinCMPID = 2
	MaxCMPID = 4095
	// MaxCMPVersion is the largest CMP version the TC string holds (12 bits).
	MaxCMPVersion = 4095
	// MaxTCFVendors bounds a site's vendors: the GVL lists about a thousand.
	MaxTCFVendors = 2000
	// MaxTCFRestrictions bounds a site's publisher restrictions.
	MaxTCFRestrictions = 100
	// MaxGoogleATPs bounds the Google Additional Consent providers a site picks (Google lists
	// a few hundred).
	MaxGoogleATPs = 1000
	// MaxGVLAge is how old the GVL in use may be: a CMP must use a list at most two weeks old
	// (TCF Policies, CMP requirements); the compliance report flags an older one.
	MaxGVLAge = 14 * 24 * time.Hour
	// CountryCodePattern is the form of tcf.publisherCountryCode: ISO 3166-1 alpha-2 in upper
	// case (IsCountry decides whether the country exists).
	CountryCodePattern = `^[A-Z]{2}$`
)

// Publisher restriction types, as the TC string encodes them.
const (
	RestrictionNotAllowed     = 0 // the purpose is not allowed for the vendors
	RestrictionRequireConsent = 1 // the vendors need consent for the purpose
	RestrictionRequireLI      = 2 // the vendors rely on legitimate interest for the purpose
)

var restrictionTypes = [...]int{RestrictionNotAllowed, RestrictionRequireConsent, RestrictionRequireLI}

// RestrictionTypes returns the publisher restriction types.
func RestrictionTypes() []int { return slices.Clone(restrictionTypes[:]) }

// ConsentOnlyPurposes returns the purposes that never rest on legitimate interest: purpose 1
// (storage and access, consent under the ePrivacy rules) and purposes 3 to 6 (personalised
// advertising and content profiles; TCF Policies since v2.2). A publisher restriction may
// not require legitimate interest for them, and the runtime never offers it.
func ConsentOnlyPurposes() []int { return []int{1, 3, 4, 5, 6} }

// GVL is the IAB's Global Vendor List, format v3 (vendor-list.json). Its maps are keyed by
// ID, as in the file. A *GVL handed out by VendorLists is shared: read only.
type GVL struct {
	GVLSpecificationVersion int                     `json:"gvlSpecificationVersion"`
	VendorListVersion       int                     `json:"vendorListVersion"`
	TCFPolicyVersion        int                     `json:"tcfPolicyVersion"`
	LastUpdated             time.Time               `json:"lastUpdated"`
	Purposes                map[int]GVLPurpose      `json:"purposes"`
	SpecialPurposes         map[int]GVLPurpose      `json:"specialPurposes"`
	Features                map[int]GVLPurpose      `json:"features"`
	SpecialFeatures         map[int]GVLPurpose      `json:"specialFeatures"`
	Stacks                  map[int]GVLStack        `json:"stacks"`
	DataCategories          map[int]GVLDataCategory `json:"dataCategories"`
	Vendors                 map[int]GVLVendor       `json:"vendors"`
}

// GVLPurpose is a purpose, special purpose, feature or special feature of the GVL.
type GVLPurpose struct {
	ID            int      `json:"id"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Illustrations []string `json:"illustrations"`
}

// GVLStack is a stack: purposes and special features the first layer may show as one.
type GVLStack struct {
	ID              int    `json:"id"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	Purposes        []int  `json:"purposes"`
	SpecialFeatures []int  `json:"specialFeatures"`
}

// GVLDataCategory is a category of data vendors declare they collect (GVL v3).
type GVLDataCategory struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// GVLVendor is a vendor of the GVL, with everything the second layer shows of it.
type GVLVendor struct {
	ID               int    `json:"id"`
	Name             string `json:"name"`
	Purposes         []int  `json:"purposes"`
	LegIntPurposes   []int  `json:"legIntPurposes"`
	FlexiblePurposes []int  `json:"flexiblePurposes"`
	SpecialPurposes  []int  `json:"specialPurposes"`
	Features         []int  `json:"features"`
	SpecialFeatures  []int  `json:"specialFeatures"`
	// CookieMaxAgeSeconds is the longest lifetime of the vendor's cookies; nil when it uses
	// none.
	CookieMaxAgeSeconds        *int64            `json:"cookieMaxAgeSeconds"`
	UsesCookies                bool              `json:"usesCookies"`
	CookieRefresh              bool              `json:"cookieRefresh"`
	UsesNonCookieAccess        bool              `json:"usesNonCookieAccess"`
	DeviceStorageDisclosureURL string            `json:"deviceStorageDisclosureUrl,omitempty"`
	DataRetention              *GVLDataRetention `json:"dataRetention,omitempty"`
	DataDeclaration            []int             `json:"dataDeclaration,omitempty"`
	URLs                       []GVLVendorURL    `json:"urls"`
	// DeletedDate is when the vendor left the GVL; a deleted vendor stays listed for a while
	// and may no longer be selected.
	DeletedDate *time.Time   `json:"deletedDate,omitempty"`
	Overflow    *GVLOverflow `json:"overflow,omitempty"`
}

// GVLDataRetention is how long a vendor keeps data, in days: StdRetention unless its purpose
// or special purpose says otherwise.
type GVLDataRetention struct {
	StdRetention    *int        `json:"stdRetention,omitempty"`
	Purposes        map[int]int `json:"purposes"`
	SpecialPurposes map[int]int `json:"specialPurposes"`
}

// GVLVendorURL is a vendor's privacy policy and legitimate-interest claim in one language.
type GVLVendorURL struct {
	LangID      string `json:"langId"`
	Privacy     string `json:"privacy"`
	LegIntClaim string `json:"legIntClaim,omitempty"`
}

// GVLOverflow is a vendor's HTTP GET request size limit (GVL v2 field, still present).
type GVLOverflow struct {
	HTTPGetLimit int `json:"httpGetLimit"`
}

// GVLTranslation is the IAB's translation of the GVL's texts into one language
// (purposes-<lang>.json): its purposes, features, stacks and data categories. Vendors are not
// translated.
type GVLTranslation struct {
	Language          string                  `json:"-"`
	VendorListVersion int                     `json:"vendorListVersion"`
	Purposes          map[int]GVLPurpose      `json:"purposes"`
	SpecialPurposes   map[int]GVLPurpose      `json:"specialPurposes"`
	Features          map[int]GVLPurpose      `json:"features"`
	SpecialFeatures   map[int]GVLPurpose      `json:"specialFeatures"`
	Stacks            map[int]GVLStack        `json:"stacks"`
	DataCategories    map[int]GVLDataCategory `json:"dataCategories"`
}

// ParseGVL reads a GVL v3 (vendor-list.json); a list in another format, without a version or
// without purposes or vendors is a validation error saying so.
func ParseGVL(data []byte) (*GVL, error) {
	var g GVL
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, core.Wrap(core.CodeInvalid, err, "the Global Vendor List is not valid JSON of the GVL v3 format")
	}
	switch {
	case g.GVLSpecificationVersion != GVLSpecificationVersion:
		return nil, core.Errorf(core.CodeInvalid, "the Global Vendor List's gvlSpecificationVersion is %d; consentd reads version %d (https://vendor-list.consensu.org/v3/vendor-list.json)", g.GVLSpecificationVersion, GVLSpecificationVersion)
	case g.VendorListVersion < 1:
		return nil, core.Errorf(core.CodeInvalid, "the Global Vendor List has no vendorListVersion")
	case len(g.Purposes) == 0 || len(g.Vendors) == 0:
		return nil, core.Errorf(core.CodeInvalid, "the Global Vendor List has no purposes or no vendors")
	}
	for id, v := range g.Vendors {
		if v.ID != id {
			return nil, core.Errorf(core.CodeInvalid, "the Global Vendor List's vendor %d has id %d", id, v.ID)
		}
		// A vendor's URLs become links in the publisher's page (the TCF second layer): only
		// http(s) URLs are kept, trimmed (the IAB's list has one with a leading space); a
		// javascript: URL in a tampered or mistaken list would run there. The vendor is then
		// shown without that link, as a Google provider without an http(s) policy is.
		v.DeviceStorageDisclosureURL = linkOrNone(v.DeviceStorageDisclosureURL)
		for i := range v.URLs {
			v.URLs[i].Privacy = linkOrNone(v.URLs[i].Privacy)
			v.URLs[i].LegIntClaim = linkOrNone(v.URLs[i].LegIntClaim)
		}
		g.Vendors[id] = v
	}
	return &g, nil
}

// linkOrNone is s, trimmed, when it is an absolute http(s) URL, else "".
func linkOrNone(s string) string {
	s = strings.TrimSpace(s)
	if core.ValidateHTTPURL("url", s) != nil {
		return ""
	}
	return s
}

// ParseGVLTranslation reads the IAB's translation of the GVL into lang (purposes-<lang>.json).
func ParseGVLTranslation(lang string, data []byte) (*GVLTranslation, error) {
	var t GVLTranslation
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, core.Wrap(core.CodeInvalid, err, "the GVL translation "+lang+" is not valid JSON")
	}
	if len(t.Purposes) == 0 {
		return nil, core.Errorf(core.CodeInvalid, "the GVL translation %s has no purposes", lang)
	}
	t.Language = strings.ToLower(lang)
	return &t, nil
}

// VendorLists is where the use cases read the Global Vendor List in use and its translations:
// the versions TCF.RefreshGVL kept in the store (storedLists), or in tests a file
// (adapters/iabgvl.File).
type VendorLists interface {
	// CurrentGVL returns the GVL in use, shared (read only); not_found when none is loaded.
	CurrentGVL(ctx context.Context) (*GVL, error)
	// GVL returns a version of the GVL consentd used, shared; not_found when it never had it.
	GVL(ctx context.Context, version int) (*GVL, error)
	// GVLTranslation returns the IAB's translation of the GVL's texts into lang (an IAB
	// language code in lower case: "fr", "pt-br"), shared; not_found when there is none.
	GVLTranslation(ctx context.Context, lang string) (*GVLTranslation, error)
	// ACProviders returns Google's Additional Consent provider list in use, shared;
	// not_found when none is loaded.
	ACProviders(ctx context.Context) (*ACProviderList, error)
}

// TCFDeployment is the deployment's TCF identity: the CMP ID IAB Europe assigned to the
// operator and the version of their CMP (CONSENTD_TCF_CMP_ID, CONSENTD_TCF_CMP_VERSION). A zero
// CMPID is none: TCF cannot be turned on.
type TCFDeployment struct {
	CMPID      int
	CMPVersion int
}

// Check returns an error unless d is a CMP ID and version a TC string can carry (or no CMP ID).
func (d TCFDeployment) Check() error {
	if d.CMPID != 0 && (d.CMPID < MinCMPID || d.CMPID > MaxCMPID) {
		return fmt.Errorf("CONSENTD_TCF_CMP_ID %d: must be the CMP ID IAB Europe assigned you, %d to %d", d.CMPID, MinCMPID, MaxCMPID)
	}
	if d.CMPVersion < 0 || d.CMPVersion > MaxCMPVersion {
		return fmt.Errorf("CONSENTD_TCF_CMP_VERSION %d: must be 0 to %d", d.CMPVersion, MaxCMPVersion)
	}
	return nil
}

// TCFSettings are a site's TCF settings, the banner's tcf object.
type TCFSettings struct {
	// Enabled turns the TCF on: where it applies (Banner.TCFApplies) the loader inlines the
	// __tcfapi stub and the TCF module asks for consent.
	Enabled bool `json:"enabled" doc:"Turns the IAB TCF on for visitors it applies to (an opt-in rule in the EEA, GB or CH, or an unknown location). Needs the deployment's CMP ID (CONSENTD_TCF_CMP_ID)."`
	// VendorIDs are the GVL vendors the site works with, in the order given.
	VendorIDs []int `json:"vendorIds" doc:"IDs of the Global Vendor List's vendors the site works with; each must be in the GVL in use and not deleted."`
	// PublisherCountryCode is the publisher's country, ISO 3166-1 alpha-2 in upper case ("" for
	// none: the TC string then says AA).
	PublisherCountryCode string `json:"publisherCountryCode" doc:"The publisher's country, ISO 3166-1 alpha-2 in upper case (FR); empty for none."`
	// SpecialFeatures are the GVL special features the site uses (opt-ins it asks for).
	SpecialFeatures []int `json:"specialFeatures" doc:"IDs of the GVL's special features the site asks visitors to opt in to."`
	// PublisherRestrictions restrict how the site's vendors may process a purpose.
	PublisherRestrictions []PublisherRestriction `json:"publisherRestrictions" doc:"Restrictions on the purposes of some of the site's vendors, encoded in the TC string."`
	// GoogleATPIDs are the Google Additional Consent providers (ad technology providers not
	// in the GVL) the site picks, by Google's provider ID.
	GoogleATPIDs []int `json:"googleAtpIds" doc:"Google's Additional Consent provider IDs (ad technology providers outside the GVL) the site works with, each on Google's provider list in use (when the server has one); the layers name them and the runtime exposes their consent as an AC string v2."`
	// UseStacks shows the IAB's stacks on the first layer in place of the purposes and
	// special features they group (ChooseStacks); off by default.
	UseStacks bool `json:"useStacks" doc:"The TCF first layer shows the IAB's stacks that group the site's purposes and special features in place of listing each (the fewest stacks that cover the most, none claiming a purpose the site does not use; the rest listed one by one). The second layer always lists every purpose. Off by default."`
}

// PublisherRestriction restricts a purpose for some of the site's vendors.
type PublisherRestriction struct {
	PurposeID       int   `json:"purposeId" doc:"The GVL purpose restricted."`
	RestrictionType int   `json:"restrictionType" doc:"0: not allowed; 1: require consent; 2: require legitimate interest (never for purposes 1 and 3 to 6)."`
	VendorIDs       []int `json:"vendorIds" doc:"The site's vendors the restriction applies to (each in tcf.vendorIds)."`
}

// Clean returns s with empty lists rather than nil ones.
func (s TCFSettings) Clean() TCFSettings {
	s.VendorIDs = core.OrEmptySlice(s.VendorIDs)
	s.SpecialFeatures = core.OrEmptySlice(s.SpecialFeatures)
	s.GoogleATPIDs = core.OrEmptySlice(s.GoogleATPIDs)
	if s.PublisherRestrictions == nil {
		s.PublisherRestrictions = []PublisherRestriction{}
	}
	for i := range s.PublisherRestrictions {
		s.PublisherRestrictions[i].VendorIDs = core.OrEmptySlice(s.PublisherRestrictions[i].VendorIDs)
	}
	return s
}

// Clone returns a deep copy of s (the stores keep their own).
func (s TCFSettings) Clone() TCFSettings {
	s.VendorIDs = slices.Clone(s.VendorIDs)
	s.SpecialFeatures = slices.Clone(s.SpecialFeatures)
	s.GoogleATPIDs = slices.Clone(s.GoogleATPIDs)
	s.PublisherRestrictions = slices.Clone(s.PublisherRestrictions)
	for i := range s.PublisherRestrictions {
		s.PublisherRestrictions[i].VendorIDs = slices.Clone(s.PublisherRestrictions[i].VendorIDs)
	}
	return s.Clean()
}

// CheckTCFSettings validates a site's TCF settings against the GVL in use (nil when none is
// loaded), Google's Additional Consent provider list in use (nil: IDs checked for form only)
// and the deployment: every vendor and special feature must be in the GVL and no vendor
// deleted, the country an ISO 3166-1 alpha-2 code in upper case, the restrictions well formed
// (require-LI never for a consent-only purpose) and on the site's vendors, no ID twice; and
// TCF cannot be enabled without a CMP ID or a GVL. Errors name the field, as in
// "tcf.vendorIds[3]: unknown vendor 9999". It returns s with empty lists for absent ones.
func CheckTCFSettings(s TCFSettings, gvl *GVL, ac *ACProviderList, d TCFDeployment) (TCFSettings, error) {
	s = s.Clone()
	if s.Enabled && d.CMPID == 0 {
		return s, core.FieldErrorf("tcf.enabled", "TCF needs this deployment's own CMP ID, registered with IAB Europe: set CONSENTD_TCF_CMP_ID (and CONSENTD_TCF_CMP_VERSION) on the server (docs/tcf.md); a made-up or borrowed ID is not allowed")
	}
	if gvl == nil && (s.Enabled || len(s.VendorIDs) > 0 || len(s.SpecialFeatures) > 0 || len(s.PublisherRestrictions) > 0) {
		return s, core.FieldErrorf("tcf", "no Global Vendor List is loaded to check the settings against; the server fetches it from the IAB, or reads CONSENTD_TCF_GVL_FILE (docs/tcf.md)")
	}
	// Without a vendor or an Additional Consent provider the TCF layer would tell visitors of
	// "0 partners" and an empty list of purposes: nothing to consent to (compliance rule
	// consent.tcf-no-vendor judges a site already in that state).
	if s.Enabled && len(s.VendorIDs) == 0 && len(s.GoogleATPIDs) == 0 {
		return s, core.FieldErrorf("tcf.vendorIds", "TCF needs at least one vendor of the Global Vendor List (tcf.vendorIds) or one Google Additional Consent provider (tcf.googleAtpIds): without one, visitors would be told of 0 partners and no purpose")
	}
	if c := s.PublisherCountryCode; c != "" && !core.IsCountry(c) {
		return s, core.FieldErrorf("tcf.publisherCountryCode", "%q is not an ISO 3166-1 alpha-2 country code in upper case (such as FR)", c)
	}
	if len(s.VendorIDs) > MaxTCFVendors {
		return s, core.FieldErrorf("tcf.vendorIds", "must have at most %d vendors", MaxTCFVendors)
	}
	seen := map[int]bool{}
	for i, id := range s.VendorIDs {
		field := fmt.Sprintf("tcf.vendorIds[%d]", i)
		v, ok := gvl.Vendors[id]
		switch {
		case seen[id]:
			return s, core.FieldErrorf(field, "vendor %d is listed twice", id)
		case !ok:
			return s, core.FieldErrorf(field, "unknown vendor %d (not in the Global Vendor List version %d)", id, gvl.VendorListVersion)
		case v.DeletedDate != nil:
			return s, core.FieldErrorf(field, "vendor %d (%s) was deleted from the Global Vendor List on %s", id, v.Name, v.DeletedDate.Format(time.DateOnly))
		}
		seen[id] = true
	}
	sf := map[int]bool{}
	for i, id := range s.SpecialFeatures {
		if _, ok := gvl.SpecialFeatures[id]; !ok || sf[id] {
			return s, core.FieldErrorf(fmt.Sprintf("tcf.specialFeatures[%d]", i), "%d is not a special feature of the Global Vendor List, or is listed twice", id)
		}
		sf[id] = true
	}
	if len(s.PublisherRestrictions) > MaxTCFRestrictions {
		return s, core.FieldErrorf("tcf.publisherRestrictions", "must have at most %d restrictions", MaxTCFRestrictions)
	}
	restricted := map[[2]int]bool{} // purpose and vendor: one restriction each
	for i, r := range s.PublisherRestrictions {
		field := fmt.Sprintf("tcf.publisherRestrictions[%d]", i)
		if _, ok := gvl.Purposes[r.PurposeID]; !ok {
			return s, core.FieldErrorf(field+".purposeId", "%d is not a purpose of the Global Vendor List", r.PurposeID)
		}
		if !slices.Contains(restrictionTypes[:], r.RestrictionType) {
			return s, core.FieldErrorf(field+".restrictionType", "must be one of %v (0 not allowed, 1 require consent, 2 require legitimate interest)", restrictionTypes)
		}
		if r.RestrictionType == RestrictionRequireLI && slices.Contains(ConsentOnlyPurposes(), r.PurposeID) {
			return s, core.FieldErrorf(field+".restrictionType", "purpose %d never rests on legitimate interest (purposes %v need consent)", r.PurposeID, ConsentOnlyPurposes())
		}
		if len(r.VendorIDs) == 0 {
			return s, core.FieldErrorf(field+".vendorIds", "must name at least one of the site's vendors")
		}
		for j, id := range r.VendorIDs {
			if !seen[id] {
				return s, core.FieldErrorf(fmt.Sprintf("%s.vendorIds[%d]", field, j), "vendor %d is not one of the site's vendors (tcf.vendorIds)", id)
			}
			if restricted[[2]int{r.PurposeID, id}] {
				return s, core.FieldErrorf(fmt.Sprintf("%s.vendorIds[%d]", field, j), "vendor %d already has a restriction on purpose %d", id, r.PurposeID)
			}
			restricted[[2]int{r.PurposeID, id}] = true
		}
	}
	return s, checkATPs(s.GoogleATPIDs, ac)
}

// TCFPublicConfig is what the TCF module needs for one site, in one language: the deployment's
// CMP, the GVL's metadata and texts (translated where the IAB publishes the language, else
// English), the site's vendors alone with everything the second layer shows, and the site's
// TCF settings. Its maps are keyed by ID, as in the GVL. Shared: read only.
type TCFPublicConfig struct {
	CMPID                   int       `json:"cmpId"`
	CMPVersion              int       `json:"cmpVersion"`
	VendorListVersion       int       `json:"vendorListVersion"`
	TCFPolicyVersion        int       `json:"tcfPolicyVersion"`
	GVLSpecificationVersion int       `json:"gvlSpecificationVersion"`
	LastUpdated             time.Time `json:"lastUpdated"`
	PublisherCountryCode    string    `json:"publisherCountryCode"`
	// Language is the language of the texts, an IAB consent language in lower case ("en",
	// "fr"); the TC string's consentLanguage is its first two letters in upper case.
	Language        string                  `json:"language"`
	Purposes        map[int]GVLPurpose      `json:"purposes"`
	SpecialPurposes map[int]GVLPurpose      `json:"specialPurposes"`
	Features        map[int]GVLPurpose      `json:"features"`
	SpecialFeatures map[int]GVLPurpose      `json:"specialFeatures"`
	Stacks          map[int]GVLStack        `json:"stacks"`
	DataCategories  map[int]GVLDataCategory `json:"dataCategories"`
	// Vendors are the site's vendors only (tcf.vendorIds), by ID; VendorIDs their order.
	Vendors   map[int]GVLVendor `json:"vendors"`
	VendorIDs []int             `json:"vendorIds"`
	// SpecialFeatureIDs are the special features the site asks visitors to opt in to
	// (tcf.specialFeatures).
	SpecialFeatureIDs     []int                  `json:"specialFeatureIds"`
	PublisherRestrictions []PublisherRestriction `json:"publisherRestrictions"`
	// GoogleATPIDs are the site's Google Additional Consent providers (tcf.googleAtpIds);
	// GoogleATPs those of them on Google's list in use, by ID, with their names and policies.
	GoogleATPIDs []int              `json:"googleAtpIds"`
	GoogleATPs   map[int]ACProvider `json:"googleAtps"`
	// PurposesShown are the purposes the layers disclose (PurposesShown): the runtime reads
	// them from here, so that the stacks chosen and the purposes listed come from one rule.
	PurposesShown []int `json:"purposesShown"`
	// FirstLayerStacks are the stacks the first layer shows in place of the purposes and
	// special features they group (tcf.useStacks, ChooseStacks); empty when off.
	FirstLayerStacks []int `json:"firstLayerStacks"`
	// ConsentOnlyPurposes are the purposes never under legitimate interest
	// (ConsentOnlyPurposes).
	ConsentOnlyPurposes []int `json:"consentOnlyPurposes"`
}

// Ports are what the TCF use cases read: the GVL, the deployment's CMP and the TC-string decoder.
type Ports struct {
	Lists      VendorLists
	Deployment TCFDeployment
	Decoder    TCStringDecoder
}

// Decode decodes a TC string; without a decoder every string is refused.
func (t Ports) Decode(s string) (*TCString, error) {
	if t.Decoder == nil {
		return nil, core.FieldErrorf("tcString", "this server decodes no TC strings")
	}
	return t.Decoder.DecodeTCString(s)
}

// gvl returns the GVL in use, nil when none is loaded.
func (t Ports) GVL(ctx context.Context) (*GVL, error) {
	if t.Lists == nil {
		return nil, nil
	}
	g, err := t.Lists.CurrentGVL(ctx)
	if core.IsNotFound(err) {
		return nil, nil
	}
	return g, err
}

// Translation returns the IAB's translation into lang, nil for English or when the IAB
// publishes none: the first of IABLanguages(lang) the IAB publishes (its base form "fr" is tried
// for "fr-be" and the reverse is not).
func (t Ports) Translation(ctx context.Context, lang string) (*GVLTranslation, error) {
	for _, l := range IABLanguages(lang) {
		tr, err := t.Lists.GVLTranslation(ctx, l)
		if err == nil {
			return tr, nil
		}
		if !core.IsNotFound(err) {
			return nil, err
		}
	}
	return nil, nil
}

// Config builds the TCF module's configuration for settings s from gvl, its translation tr
// (nil: English) and Google's provider list ac (nil: none loaded).
func (t Ports) Config(s TCFSettings, gvl *GVL, tr *GVLTranslation, ac *ACProviderList) *TCFPublicConfig {
	s = s.Clone()
	cfg := &TCFPublicConfig{
		CMPID: t.Deployment.CMPID, CMPVersion: t.Deployment.CMPVersion,
		VendorListVersion: gvl.VendorListVersion, TCFPolicyVersion: gvl.TCFPolicyVersion,
		GVLSpecificationVersion: gvl.GVLSpecificationVersion, LastUpdated: gvl.LastUpdated,
		PublisherCountryCode: s.PublisherCountryCode, Language: "en",
		Purposes: gvl.Purposes, SpecialPurposes: gvl.SpecialPurposes, Features: gvl.Features,
		SpecialFeatures: gvl.SpecialFeatures, Stacks: gvl.Stacks, DataCategories: gvl.DataCategories,
		Vendors: make(map[int]GVLVendor, len(s.VendorIDs)), VendorIDs: s.VendorIDs,
		SpecialFeatureIDs: s.SpecialFeatures, PublisherRestrictions: s.PublisherRestrictions,
		GoogleATPIDs: s.GoogleATPIDs, GoogleATPs: siteACProviders(s.GoogleATPIDs, ac), FirstLayerStacks: []int{},
		ConsentOnlyPurposes: ConsentOnlyPurposes(),
	}
	cfg.PurposesShown = PurposesShown(gvl, s.VendorIDs)
	if s.UseStacks {
		cfg.FirstLayerStacks = ChooseStacks(gvl.Stacks, cfg.PurposesShown, s.SpecialFeatures)
	}
	for _, id := range s.VendorIDs {
		if v, ok := gvl.Vendors[id]; ok {
			cfg.Vendors[id] = v
		}
	}
	if tr != nil {
		cfg.Language = tr.Language
		cfg.Purposes = translatedTexts(gvl.Purposes, tr.Purposes)
		cfg.SpecialPurposes = translatedTexts(gvl.SpecialPurposes, tr.SpecialPurposes)
		cfg.Features = translatedTexts(gvl.Features, tr.Features)
		cfg.SpecialFeatures = translatedTexts(gvl.SpecialFeatures, tr.SpecialFeatures)
		cfg.Stacks = maps.Clone(gvl.Stacks)
		for id, s := range tr.Stacks {
			if en, ok := cfg.Stacks[id]; ok && s.Name != "" {
				en.Name, en.Description = s.Name, s.Description
				cfg.Stacks[id] = en
			}
		}
		cfg.DataCategories = maps.Clone(gvl.DataCategories)
		for id, d := range tr.DataCategories {
			if en, ok := cfg.DataCategories[id]; ok && d.Name != "" {
				en.Name, en.Description = d.Name, d.Description
				cfg.DataCategories[id] = en
			}
		}
	}
	return cfg
}

// translatedTexts returns en with the name, description and illustrations of each entry that
// tr translates.
func translatedTexts(en, tr map[int]GVLPurpose) map[int]GVLPurpose {
	out := maps.Clone(en)
	for id, p := range tr {
		if e, ok := out[id]; ok && p.Name != "" {
			e.Name, e.Description = p.Name, p.Description
			if len(p.Illustrations) > 0 {
				e.Illustrations = p.Illustrations
			}
			out[id] = e
		}
	}
	return out
}

// TCFChoices is what the console's TCF section offers a site: whether this deployment can turn
// the TCF on (its CMP ID, 0 for none) and the GVL in use to pick vendors and special features
// from (nil when none is loaded).
type TCFChoices struct {
	CMPID int
	GVL   *GVL
}

// SearchVendors returns at most limit vendors of g that are not deleted and whose ID is q or
// whose name contains q (ignoring case), by name.
func (g *GVL) SearchVendors(q string, limit int) []GVLVendor {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || limit < 1 {
		return nil
	}
	var out []GVLVendor
	for _, v := range g.Vendors {
		if v.DeletedDate == nil && (strconv.Itoa(v.ID) == q || strings.Contains(strings.ToLower(v.Name), q)) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b GVLVendor) int {
		return cmpOrInt(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), a.ID-b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func cmpOrInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}
