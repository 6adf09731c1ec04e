package core

// ComplianceRuleCount is how many rules compliance_rules.json defines, for the external tests.
var ComplianceRuleCount = len(complianceRules)
