package core

// ComplianceRuleCount is how many rules compliance_rules.json defines, for the external tests.
var ComplianceRuleCount = len(complianceRules)

// Core's tests hash passwords with cheap argon2id parameters; the hash records them.
func init() { argonTime, argonMemory = 1, 1024 }
