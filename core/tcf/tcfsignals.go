package tcf

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/consentd/consentd/library"
)

// What the TCF choices mean outside the TC string, in one table. Where the TCF applies, the
// visitor decides on the IAB's purposes and vendors in the TCF module (bannerjs/tcf.js); this
// table says which of consentd's categories and which Google Consent Mode signals that decision
// grants. The TCF module receives it with the site's TCF configuration (TCFPublicConfig.Signals)
// and applies it as data; docs/tcf.md shows it.
//
//	consentd category / Consent Mode signal   TCF purposes that must all be consented
//	essential (and any required category)     none: always on
//	statistics                                1 store/access, 8 measure content, 9 audience statistics
//	marketing                                 1, 2 limited-data ads, 3 ads profile, 4 personalised ads, 7 measure ads
//	analytics_storage                         1, 8, 9
//	ad_storage                                1, and vendor 755 (Google Advertising Products) consented
//	ad_user_data                              1, 7, and vendor 755 consented
//	ad_personalization                        3, 4, and vendor 755 consented
//
// The Consent Mode rows follow Google's own reading of the TC string (purpose 1 for storage,
// purposes 3 and 4 for personalisation, 1 and 7 for sending user data, each with Google's
// vendor consent); functionality_storage and security_storage stay granted, as without the TCF.
// "Accept all" and "reject all" allow or refuse every category, as consentd's own buttons do; the
// table decides the categories of a choice made purpose by purpose in the second layer.

// GoogleVendorID is the Global Vendor List's ID of Google Advertising Products.
const GoogleVendorID = 755

// TCFNeed is what a category or a Consent Mode signal needs of the TCF choices.
type TCFNeed struct {
	Purposes []int `json:"purposes" doc:"TCF purposes that must all be consented."`
	Vendor   int   `json:"vendor,omitempty" doc:"A vendor (GVL ID) that must be consented too; 0: none."`
}

// TCFSignals is the table from TCF choices to consentd's categories and Google Consent Mode.
type TCFSignals struct {
	Categories  map[string]TCFNeed `json:"categories" doc:"Each consentd category slug the TCF choices decide, and the purposes it needs; a site's category absent here is allowed only by accept all (required ones are always on)."`
	ConsentMode map[string]TCFNeed `json:"consentMode" doc:"Each Google Consent Mode signal the TCF choices decide, and what it needs."`
}

// TCFSignalTable returns the table (a fresh copy).
func TCFSignalTable() TCFSignals {
	g := GoogleVendorID
	return TCFSignals{
		Categories: map[string]TCFNeed{
			library.CategoryStatistics: {Purposes: []int{1, 8, 9}},
			library.CategoryMarketing:  {Purposes: []int{1, 2, 3, 4, 7}},
		},
		ConsentMode: map[string]TCFNeed{
			GcmAnalyticsStorage:  {Purposes: []int{1, 8, 9}},
			GcmAdStorage:         {Purposes: []int{1}, Vendor: g},
			GcmAdUserData:        {Purposes: []int{1, 7}, Vendor: g},
			GcmAdPersonalization: {Purposes: []int{3, 4}, Vendor: g},
		},
	}
}

// Grants applies the table to the purposes and vendors consented: which categories and which
// Consent Mode signals are granted.
func (s TCFSignals) Grants(purposes, vendors []int) (categories, consentMode map[string]bool) {
	in := func(list []int, x int) bool {
		for _, v := range list {
			if v == x {
				return true
			}
		}
		return false
	}
	meets := func(n TCFNeed) bool {
		for _, p := range n.Purposes {
			if !in(purposes, p) {
				return false
			}
		}
		return n.Vendor == 0 || in(vendors, n.Vendor)
	}
	categories, consentMode = map[string]bool{}, map[string]bool{}
	for k, n := range s.Categories {
		categories[k] = meets(n)
	}
	for k, n := range s.ConsentMode {
		consentMode[k] = meets(n)
	}
	return categories, consentMode
}

//go:embed tcftexts.json
var tcfTextsJSON []byte

// TcfTexts are the TCF layers' texts by language (in every built-in language, core/i18n),
// parsed once and keyed in lower case ("pt-br", "zh-hant") as languages are matched.
var TcfTexts = func() map[string]map[string]string {
	var m map[string]map[string]string
	if err := json.Unmarshal(tcfTextsJSON, &m); err != nil {
		return map[string]map[string]string{} // ruled out by the package tests
	}
	out := make(map[string]map[string]string, len(m))
	for lang, texts := range m {
		out[strings.ToLower(lang)] = texts
	}
	return out
}()

// TCFCookieDays is how long the TC string is kept (the euconsent-v2 cookie): the TCF policy
// has a CMP ask again at least every 13 months.
const TCFCookieDays = 390

// Google Consent Mode v2 consent types (VendorConsents).
const (
	GcmAdStorage         = "ad_storage"
	GcmAdUserData        = "ad_user_data"
	GcmAdPersonalization = "ad_personalization"
	GcmAnalyticsStorage  = "analytics_storage"
	GcmFunctionality     = "functionality_storage"
	GcmSecurity          = "security_storage"
)
