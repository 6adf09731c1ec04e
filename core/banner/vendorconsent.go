package banner

import (
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/library"
)

// The vendors' consent APIs, in one table: Google Consent Mode v2, Microsoft UET consent mode
// and Microsoft Clarity's consent API v2. Each entry says how the runtime calls the vendor's API
// and which categories each of its signals needs; the runtime sends every entry's default (each
// signal that needs a category denied) before any tag runs, and an update after each decision,
// applying the table as data (bannerjs/guard.js knows no vendor). A new vendor is a new entry.

// VendorConsent is how the runtime tells one vendor's consent API the visitor's consent.
type VendorConsent struct {
	Vendor string `json:"vendor" doc:"The consent API: google_consent_mode, microsoft_uet or microsoft_clarity."`
	Call   string `json:"call" doc:"The page's global the runtime calls: a function (kind function) or a queue whose push it calls (kind queue)."`
	Kind   string `json:"kind" enum:"function,queue" doc:"function: call is called with the arguments; queue: call is an array (until the vendor's tag replaces it) and its push is called with them."`
	// Queue names the page's array that a stand-in for a function, set while the vendor's tag
	// has not loaded, pushes its arguments onto (gtag's dataLayer); empty: the stand-in queues
	// them on its own q property (Clarity's snippet does the same).
	Queue   string         `json:"queue,omitempty" doc:"For kind function: the page's array a stand-in pushes its arguments onto until the vendor's tag loads (dataLayer); empty: the stand-in's own q."`
	Default []string       `json:"default" doc:"The arguments before the signals in the default call, sent before any tag runs."`
	Update  []string       `json:"update" doc:"The arguments before the signals in the update call, sent after each decision."`
	Params  map[string]int `json:"params,omitempty" doc:"Settings added to the default's signals (Google's wait_for_update)."`
	Signals Signals        `json:"signals" doc:"The API's signals ('granted' or 'denied') and the categories each needs; one with none is always granted."`
	Set     Signals        `json:"set,omitempty" doc:"Settings sent as call('set', name, true) while any of their categories is not allowed (Google's ads_data_redaction), false otherwise."`
}

// How the runtime calls a vendor's consent API (VendorConsent.Kind).
const (
	CallFunction = "function" // window[call](args...)
	CallQueue    = "queue"    // window[call].push(args...)
)

// VendorCallKinds returns the kinds of VendorConsent.Kind.
func VendorCallKinds() []string { return []string{CallFunction, CallQueue} }

// Vendors of the consent APIs.
const (
	VendorGoogleConsentMode = "google_consent_mode"
	VendorMicrosoftUET      = "microsoft_uet"
	VendorMicrosoftClarity  = "microsoft_clarity"
)

// VendorConsents returns the vendors' consent APIs the runtime tells. The runtime's build puts
// the table into the runtime, which sends the defaults (granting only what needs no category)
// before it knows the site; the configuration's policy carries it for the updates.
func VendorConsents() []VendorConsent {
	return []VendorConsent{
		{
			// Google Consent Mode v2: gtag('consent', 'default'|'update', {...}), queued on
			// window.dataLayer; ads_data_redaction while ads are refused.
			Vendor: VendorGoogleConsentMode, Call: "gtag", Kind: CallFunction, Queue: "dataLayer",
			Default: []string{"consent", "default"}, Update: []string{"consent", "update"},
			Params: map[string]int{"wait_for_update": 500}, Signals: consentModeSignals(),
			Set: Signals{"ads_data_redaction": {library.CategoryMarketing}},
		},
		{
			// Microsoft UET consent mode: window.uetq.push('consent', 'default'|'update',
			// {ad_storage}); bat.js replaces the array with an object of its own that has push.
			Vendor: VendorMicrosoftUET, Call: "uetq", Kind: CallQueue,
			Default: []string{"consent", "default"}, Update: []string{"consent", "update"},
			Signals: Signals{"ad_storage": {library.CategoryMarketing}},
		},
		{
			// Microsoft Clarity consent API v2: clarity('consentv2', {ad_Storage,
			// analytics_Storage}), the same call for the first state and every change.
			Vendor: VendorMicrosoftClarity, Call: "clarity", Kind: CallFunction,
			Default: []string{"consentv2"}, Update: []string{"consentv2"},
			Signals: Signals{"ad_Storage": {library.CategoryMarketing}, "analytics_Storage": {library.CategoryStatistics}},
		},
	}
}

func consentModeSignals() Signals {
	return Signals{
		tcf.GcmAdStorage:         {library.CategoryMarketing},
		tcf.GcmAdUserData:        {library.CategoryMarketing},
		tcf.GcmAdPersonalization: {library.CategoryMarketing},
		tcf.GcmAnalyticsStorage:  {library.CategoryStatistics},
		tcf.GcmFunctionality:     {},
		tcf.GcmSecurity:          {},
	}
}
