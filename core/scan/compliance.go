package scan

import (
	"slices"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// Severities of a compliance finding, from the most to the least serious.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNotice  = "notice"
)

// severities are the severities, most serious first.
var severities = [...]string{SeverityError, SeverityWarning, SeverityNotice}

// Severities returns the severities, most serious first.
func Severities() []string { return slices.Clone(severities[:]) }

// Finding is one broken rule, with its evidence.
type Finding struct {
	// RuleID is stable across releases ("banner.reject-first-layer"); its texts are in
	// compliance_rules.json.
	RuleID string `json:"ruleId"`
	// Family groups rules for the summary: banner, consent, declaration, enforcement.
	Family   string `json:"family"`
	Severity string `json:"severity" enum:"error,warning,notice"`
	// Title names the rule; Source is the regulation or guidance it comes from; Fix says in
	// one sentence what to change.
	Title  string `json:"title"`
	Source string `json:"source"`
	Fix    string `json:"fix"`
	// Detail says what was found, for this finding.
	Detail   string   `json:"detail"`
	Evidence Evidence `json:"evidence"`
}

// Evidence is what a finding rests on: a configuration field, or what the browser did in a
// state of a verification scan. Fields that do not apply are null.
type Evidence struct {
	// Field is the configuration field ("banner.defaultBehavior", "categories[statistics].isDefault",
	// "services[hotjar].cookies[_hjid].duration") and Value its value.
	Field *string `json:"field"`
	Value *string `json:"value"`
	// ScanID is the verification scan; State, Page, Request, Cookie and Service what it saw.
	ScanID  *string `json:"scanId"`
	State   *string `json:"state"`
	Page    *string `json:"page"`
	Request *string `json:"request"`
	// Cookie is a cookie or storage key, "name (domain)".
	Cookie   *string `json:"cookie"`
	Service  *string `json:"service"`
	Category *string `json:"category"`
	// Rule is the regional rule whose run saw it ("regionRules[1]"), null for a verification
	// without regional runs or a configuration finding.
	Rule *string `json:"rule"`
	// Requests and Cookies list every offending request URL and every cookie or storage key
	// ("name (domain)") a verification finding stands for, Request and Cookie first, at most
	// MaxEvidenceItems each; Omitted counts those left out. Null for a configuration finding.
	Requests []string `json:"requests"`
	Cookies  []string `json:"cookies"`
	Omitted  int      `json:"omitted"`
}

// MaxEvidenceItems bounds each list of a finding's evidence (Evidence.Requests, Cookies).
const MaxEvidenceItems = 25

// FamilySummary counts a rule family's findings.
type FamilySummary struct {
	Family string `json:"family"`
	// Rules is the number of the family's rules that were checked; Passed those without a
	// finding.
	Rules    int `json:"rules"`
	Passed   int `json:"passed"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notices  int `json:"notices"`
}

// ComplianceReport is the answer to "am I compliant, and how do you know?".
type ComplianceReport struct {
	SiteID string `json:"siteId"`
	// GeneratedAt is when the report was computed.
	GeneratedAt time.Time `json:"generatedAt"`
	// VerificationScanID is the latest completed verification scan whose findings are in the
	// report, with its finish time; null when the site has none (configuration rules only).
	VerificationScanID *string    `json:"verificationScanId"`
	VerifiedAt         *time.Time `json:"verifiedAt"`
	// Verdict is compliant only when a verification scan saw the site obey every consent state
	// and no finding is an error; not_compliant when an error rests on what a scan saw (a
	// verification's findings, or a completed scan's tracker that nothing holds back) or any
	// error remains after a verification; unverified otherwise: consentd has not seen the site
	// obey consent yet, and the configuration's errors are what to fix before verifying.
	Verdict string `json:"verdict" enum:"compliant,not_compliant,unverified" doc:"compliant only with a passing verification scan; not_compliant when a scan's evidence (or anything after a verification) is an error; unverified when no verification scan has checked the site yet. Configuration errors alone leave it unverified: they are listed as what to fix before verifying."`
	// Compliant is true exactly when Verdict is compliant.
	Compliant bool `json:"compliant" doc:"True exactly when verdict is compliant."`
	// Findings are sorted by severity, then rule ID, then evidence.
	Findings []Finding       `json:"findings"`
	Summary  []FamilySummary `json:"summary"`
	// Rules say, per regional rule of the site, what the verification checked, when and from
	// where, and whether it passed; empty without a verification by regional rule.
	Rules []RuleResult `json:"rules"`
}

// RuleResult is one regional rule's part of a verification in a compliance report.
type RuleResult struct {
	core.RulePlace
	// VerifiedAt is when its run ended; null for a rule the verification did not visit.
	VerifiedAt *time.Time `json:"verifiedAt"`
	// States are the states its run visited (no_decision, reject_all, do_not_sell, gpc, ...).
	States []string `json:"states"`
	// Passed is true when its run was made and no error finding rests on it.
	Passed bool `json:"passed"`
	// Errors and Warnings count the findings that rest on its run.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Verdicts of a compliance report.
const (
	VerdictCompliant    = "compliant"
	VerdictNotCompliant = "not_compliant"
	VerdictUnverified   = "unverified"
)

// Verdicts returns the verdicts a report may give.
func Verdicts() []string { return []string{VerdictCompliant, VerdictNotCompliant, VerdictUnverified} }

// ComplianceInput is the site configuration the configuration rules read: the banner, the
// categories and the services (with their cookies). The management API builds it from the
// store; `consentd verify` from the public configuration the runtime fetched.
type ComplianceInput struct {
	Banner     *banner.Banner
	Categories []*banner.Category
	Services   []*banner.Service
	// BlockingRules are the rules the runtime is served (nil: none).
	BlockingRules *banner.BlockingRules
	// Scan is the site's latest completed scan (nil: none): every non-essential service it
	// found must be held back until consent.
	Scan *Scan
	// TCF is the deployment's TCF and the GVL in use (nil: the TCF rules are not judged).
	TCF *TCFComplianceInput
}

// ComplianceInputFromPublicConfig is the configuration a runtime fetched, as rule input: what
// `consentd verify` checks when it has no store.
func ComplianceInputFromPublicConfig(cfg *banner.PublicConfig) *ComplianceInput {
	in := &ComplianceInput{Banner: cfg.Banner, BlockingRules: cfg.BlockingRules}
	for _, pc := range cfg.Categories {
		if pc.Category == nil {
			continue
		}
		in.Categories = append(in.Categories, pc.Category)
		in.Services = append(in.Services, pc.Services...)
	}
	return in
}

// Reaches reports whether a finding is at severity or more serious: the exit status of
// `consentd verify --fail-on`. An unknown severity is reached by nothing.
func (r *ComplianceReport) Reaches(severity string) bool {
	limit := slices.Index(severities[:], severity)
	for _, f := range r.Findings {
		if i := slices.Index(severities[:], f.Severity); i >= 0 && limit >= 0 && i <= limit {
			return true
		}
	}
	return false
}
