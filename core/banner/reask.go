package banner

import "github.com/consentd/consentd/core"

// How long a refusal lasts (#45): after a visitor refuses (reject all), the banner does not ask
// again for ReaskFor days, whatever cookieExpirationDays says of other decisions; then it asks
// again. The defaults follow the law of the rule's behaviour:
//   - opt_in (the GDPR and ePrivacy regime): six months. The EU's Digital Omnibus proposal
//     (COM(2025) 837) would forbid asking again for the same purpose for six months after a
//     refusal, and the CNIL already recommends keeping a refusal as long as a consent
//     (its 2020 guidelines on cookies, and its recommendation of six months for both).
//   - opt_out (the US state laws): twelve months. The CCPA lets a business ask a consumer who
//     opted out of sale or sharing to opt back in only after twelve months (Cal. Civ. Code
//     §1798.135(c)(4)); consentd applies the same wait under every opt-out rule.
//   - no_banner: the banner never asks; the value is the opt-in one, for a visitor who opened
//     the preferences and refused.
const (
	// ReaskOptInDays is the default under opt_in (and no_banner) rules.
	ReaskOptInDays = 180
	// ReaskOptOutDays is the default under opt_out rules.
	ReaskOptOutDays = 365
	// MinReask and MaxReask bound reaskAfterRejectDays (MaxReask: the longest a consent
	// cookie may live, MaxCookieExpiration).
	MinReask = 1
	MaxReask = MaxCookieExpiration
)

// ReaskDefault returns the default reaskAfterRejectDays under a behaviour.
func ReaskDefault(behavior string) int {
	if behavior == BehaviorOptOut {
		return ReaskOptOutDays
	}
	return ReaskOptInDays
}

// ReaskFor returns how long a refusal keeps the banner away for a visitor under rule: the
// rule's own reaskAfterRejectDays, else the banner's, else the default of the behaviour that
// applies to the visitor.
func (b *Banner) ReaskFor(rule VisitorRule) int {
	if r := rule.Rule; r != nil && r.ReaskAfterRejectDays != nil {
		return *r.ReaskAfterRejectDays
	}
	if b.ReaskAfterRejectDays != nil {
		return *b.ReaskAfterRejectDays
	}
	return ReaskDefault(b.BehaviorFor(rule))
}

func checkReask(field string, v *int) error {
	if v != nil && (*v < MinReask || *v > MaxReask) {
		return core.FieldErrorf(field, "must be %d to %d days", MinReask, MaxReask)
	}
	return nil
}

func clonePtr(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
