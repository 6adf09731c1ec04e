package edge

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/consentd/consentd/core"
)

// Decision is the visitor's stored decision as the runtime writes it in the cookie
// (bannerjs/consent.js): {v: consentVersion, c: {category: bool}, ...}; only v and c decide
// what is held.
type Decision struct {
	// Version is v; nil when the cookie has none.
	Version *float64 `json:"v"`
	// Categories is c: each category the decision names, with any JSON value (only booleans
	// count).
	Categories map[string]any `json:"c"`
}

// CookieValue returns the raw value of the decision cookie in a Cookie request header (or
// document.cookie), "" when there is none: the first "consentd=" at the start or after a ";"
// and spaces, as the runtime's readCookie finds it.
func CookieValue(header string) string {
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ";")
		part = strings.TrimLeft(part, " \t\r\n\f\v")
		if v, ok := strings.CutPrefix(part, CookieName+"="); ok {
			return v
		}
	}
	return ""
}

// ParseDecision parses the cookie's raw value (URI-encoded JSON); ok is false when it is
// missing or malformed, or c is not an object: the runtime then has no decision either.
func ParseDecision(raw string) (d Decision, ok bool) {
	if raw == "" {
		return Decision{}, false
	}
	s, err := url.PathUnescape(raw)
	if err != nil {
		return Decision{}, false
	}
	// The runtime accepts any object with an object c; a v of another type than a number is
	// not one it writes, and counts as no decision here.
	if err := json.Unmarshal([]byte(s), &d); err != nil || d.Categories == nil {
		return Decision{}, false
	}
	return d, true
}

// PolicyAt returns the policy of a visitor at loc: the subdivision's, else the country's, else
// (an unknown place) Unknown's.
func (rs *RuleSet) PolicyAt(loc core.Location) *HoldPolicy {
	i, ok := rs.Places[loc.Region]
	if !ok || loc.Region == "" {
		if i, ok = rs.Places[loc.Country]; !ok || loc.Country == "" {
			i = rs.Unknown
		}
	}
	if i < 0 || i >= len(rs.Policies) {
		return nil
	}
	return &rs.Policies[i]
}

// current reports whether d is a current decision: of this consent version or a later one,
// naming every category with a boolean (the runtime's current()).
func (rs *RuleSet) current(d Decision) bool {
	if d.Version != nil && *d.Version < float64(rs.ConsentVersion) {
		return false
	}
	for _, slug := range rs.Categories {
		if _, ok := d.Categories[slug].(bool); !ok {
			return false
		}
	}
	return true
}

// Allowed returns the effective state of every category for a visitor under p with the stored
// decision d (ok false: none) and a GPC signal or not: the decision's choices when current,
// else p's initial states; required categories on; those the signal turns off off (the
// runtime's effective()).
func (rs *RuleSet) Allowed(p *HoldPolicy, d Decision, ok, gpc bool) map[string]bool {
	out := make(map[string]bool, len(p.Categories))
	cur := ok && rs.current(d)
	for slug, c := range p.Categories {
		switch {
		case c.Required:
			out[slug] = true
		case cur:
			out[slug] = d.Categories[slug] == true
		default:
			out[slug] = c.Initial
		}
	}
	if gpc {
		for _, slug := range p.GPCOff {
			if !p.Categories[slug].Required {
				out[slug] = false
			}
		}
	}
	return out
}
