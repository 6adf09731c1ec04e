package edge

import (
	"net/url"
	"slices"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// Matcher is a rule set compiled for matching: its patterns indexed by host, so that a URL
// on a host no rule names costs a map lookup or two. Shared and read only once built.
type Matcher struct {
	RuleSet *RuleSet
	pats    []pattern
	// exact maps a host to the patterns on it; sub maps a host to the patterns on it and its
	// subdomains ("*.host"). Both list pattern indices in the rules' order.
	exact, sub map[string][]int
}

type pattern struct {
	p    library.Pattern
	rule int
	// free is true when the pattern's host is one of the unheld hosts or under one: its
	// matches are never held.
	free bool
	// res is true for a rule's Resources pattern.
	res bool
}

// Compile compiles rs's patterns. Patterns the pattern language rejects are skipped, as the
// runtime skips them.
func (rs *RuleSet) Compile() *Matcher {
	m := &Matcher{RuleSet: rs, exact: map[string][]int{}, sub: map[string][]int{}}
	for ri, r := range rs.Rules {
		for k, raw := range slices.Concat(r.Patterns, r.Resources) {
			p, err := library.ParsePattern(raw)
			if err != nil {
				continue
			}
			free := false
			for _, h := range rs.UnheldHosts {
				if p.Host == h || strings.HasSuffix(p.Host, "."+h) {
					free = true
				}
			}
			m.pats = append(m.pats, pattern{p: p, rule: ri, free: free, res: k >= len(r.Patterns)})
			if p.Subdomains {
				m.sub[p.Host] = append(m.sub[p.Host], len(m.pats)-1)
			} else {
				m.exact[p.Host] = append(m.exact[p.Host], len(m.pats)-1)
			}
		}
	}
	return m
}

// candidates calls f with the indices of the patterns whose host part matches host (exact
// hosts first, then *.host from the longest), until f returns true; it allocates nothing.
func (m *Matcher) candidates(host string, f func(i int) bool) {
	for _, i := range m.exact[host] {
		if f(i) {
			return
		}
	}
	for h := host; ; {
		for _, i := range m.sub[h] {
			if f(i) {
				return
			}
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return
		}
		h = h[i+1:]
	}
}

// ruleFor returns the index of the first pattern matching u (http or https), -1 when none does
// (the runtime's ruleFor); res picks the rules' Patterns (false) or their Resources (true).
func (m *Matcher) ruleFor(u *url.URL, res bool) int {
	if u.Scheme != "http" && u.Scheme != "https" {
		return -1
	}
	host := strings.ToLower(u.Hostname())
	best := -1
	m.candidates(host, func(i int) bool {
		if (best < 0 || i < best) && m.pats[i].res == res && m.pats[i].p.MatchURL(u) {
			best = i
		}
		return false
	})
	return best
}

// NamesHost reports whether any pattern's host part matches host (lower case, no port): only
// URLs on such hosts can be held.
func (m *Matcher) NamesHost(host string) bool {
	if len(m.exact[host]) > 0 {
		return true
	}
	for h := host; ; {
		if len(m.sub[h]) > 0 {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return false
		}
		h = h[i+1:]
	}
}

// Visitor is what is held for one visitor: the allowed categories under the visitor's policy
// and decision.
type Visitor struct {
	m *Matcher
	// Policy is the visitor's policy; Allowed the effective state of every category.
	Policy  *HoldPolicy
	Allowed map[string]bool
	// holds is true when some rule may hold something for this visitor.
	holds bool
}

// Visitor returns what is held for a visitor at loc whose request carries the Cookie header
// cookieHeader and a GPC signal (Sec-GPC: 1) or not.
func (m *Matcher) Visitor(loc core.Location, cookieHeader string, gpc bool) *Visitor {
	v := &Visitor{m: m, Policy: m.RuleSet.PolicyAt(loc)}
	if v.Policy == nil {
		v.Policy = &HoldPolicy{}
	}
	d, ok := ParseDecision(CookieValue(cookieHeader))
	v.Allowed = m.RuleSet.Allowed(v.Policy, d, ok, gpc)
	if m.RuleSet.SiteWide {
		for _, p := range m.pats {
			if !p.free && !v.Allowed[m.RuleSet.Rules[p.rule].Category] {
				v.holds = true
				break
			}
		}
	}
	return v
}

// HoldsAny reports whether anything may be held for the visitor: when false, the page passes
// unchanged.
func (v *Visitor) HoldsAny() bool { return v.holds }

// Hold returns the rule that holds u for the visitor, nil when u may load: the first rule with
// a pattern matching u, unless its pattern is on an unheld host or its category is allowed
// (the runtime's holdFor).
func (v *Visitor) Hold(u *url.URL) *HoldRule {
	if !v.holds {
		return nil
	}
	return v.hold(v.m.ruleFor(u, false))
}

func (v *Visitor) hold(i int) *HoldRule {
	if i < 0 || v.m.pats[i].free {
		return nil
	}
	r := &v.m.RuleSet.Rules[v.m.pats[i].rule]
	if v.Allowed[r.Category] {
		return nil
	}
	return r
}

// HoldResource returns the rule that holds u as an image or stylesheet, nil when it may load:
// u's rule by the rules' patterns when it has one (Hold), else by their resources.
func (v *Visitor) HoldResource(u *url.URL) *HoldRule {
	if !v.holds {
		return nil
	}
	if i := v.m.ruleFor(u, false); i >= 0 {
		return v.hold(i)
	}
	return v.hold(v.m.ruleFor(u, true))
}

// HoldHost returns a rule that holds some URL on host for the visitor (a pattern on it, not
// free, its category not allowed), nil when there is none: a resource hint (preconnect,
// dns-prefetch) to such a host is removed, as what it prepares must not be fetched.
func (v *Visitor) HoldHost(host string) *HoldRule {
	if !v.holds {
		return nil
	}
	var held *HoldRule
	v.m.candidates(host, func(i int) bool {
		p := v.m.pats[i]
		if r := &v.m.RuleSet.Rules[p.rule]; !p.free && !v.Allowed[r.Category] {
			held = r
		}
		return held != nil
	})
	return held
}

// NamesHost reports whether some rule names host (lower case, no port): a URL on another host
// is never held, and needs no closer look.
func (v *Visitor) NamesHost(host string) bool { return v.m.NamesHost(host) }
