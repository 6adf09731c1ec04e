package core

// ComplianceRuleCount is how many rules compliance_rules.json defines, for the external tests.
var ComplianceRuleCount = len(complianceRules)

// Core's tests hash passwords with cheap argon2id parameters; the hash records them.
func init() { argonTime, argonMemory = 1, 1024 }

// VisitorRuleCached returns what the public banner's cached views resolve a visitor's rule with:
// b's rules indexed once.
func VisitorRuleCached(b *Banner) func(Location) VisitorRule {
	x := newRegionIndex(b.RegionRules)
	return func(loc Location) VisitorRule { return b.visitorRuleIndexed(x, loc) }
}
