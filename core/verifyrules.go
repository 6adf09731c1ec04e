package core

import "time"

// A verification per regional rule: the browser visits once per rule of the site as a visitor
// from a place that rule covers (the server believes the place only with the verifier's
// credential, core/verifier), and runs the states that check what the rule promises:
//   - opt_in: no_decision, reject_all, accept_all, withdrawn (nothing but the required
//     categories before a choice and after reject or withdrawal);
//   - opt_out: no_decision (the notice and its Do Not Sell or Share control are shown),
//     do_not_sell (the control clicked: the sale category stays off), and, where the rule
//     honours Global Privacy Control, gpc (a browser sending the signal: the sale category
//     stays off without any click);
//   - no_banner: no_decision (no banner is shown), and gpc where the rule honours it.
const (
	// StateDoNotSell is every page loaded again after the Do Not Sell or Share control.
	StateDoNotSell = "do_not_sell"
	// StateGPC is every page loaded, no decision made, by a browser sending a Global Privacy
	// Control signal (Sec-GPC: 1 and navigator.globalPrivacyControl).
	StateGPC = "gpc"
)

// RulePlace is where a verification visits from to see one regional rule of a site as its
// visitors do: the rule, a place it covers, and what it promises.
type RulePlace struct {
	// Rule names the rule as consent records do: "regionRules[1]"; "" for a banner without
	// regional rules (then Location is "" too: the scanner's own place).
	Rule string `json:"rule"`
	// Regions are the rule's region codes, as configured.
	Regions []string `json:"regions"`
	// Location is the place visited from: a country ("FR"), a subdivision ("US-CA"),
	// RegionUnknown, or "" for the scanner's own location.
	Location string `json:"location"`
	// Behavior is the rule's defaultBehavior: opt_in, opt_out or no_banner.
	Behavior string `json:"behavior" enum:"opt_in,opt_out,no_banner"`
	// HonorGPC and DoNotSellLink are the rule's.
	HonorGPC      bool `json:"honorGpc"`
	DoNotSellLink bool `json:"doNotSellLink"`
}

// RuleVerification is one regional rule's run of a verification.
type RuleVerification struct {
	RulePlace
	// VerifiedAt is when the run ended.
	VerifiedAt time.Time `json:"verifiedAt"`
	// BannerShown is true when consentd's banner showed its first layer to this visitor
	// before any decision.
	BannerShown bool `json:"bannerShown"`
	// DoNotSellControl is true when the first layer offered the Do Not Sell or Share control.
	DoNotSellControl bool `json:"doNotSellControl"`
	// RejectOnFirstLayer and ReopenButton as Verification's, for an opt_in run.
	RejectOnFirstLayer bool `json:"rejectOnFirstLayer"`
	ReopenButton       bool `json:"reopenButton"`
	// States are the run's states, in the order visited; Unreached those it could not set up.
	States    []VerifiedState  `json:"states"`
	Unreached []UnreachedState `json:"unreached"`
}
