package scan

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// The compliance rules: what a site's configuration and its latest verification scan are
// checked against. The rules' texts (title, source, fix, detail template and default severity)
// live in compliance_rules.json, one entry per stable rule ID, so that they can be reviewed and
// translated without reading Go; the checks are in compliance_config.go (the configuration)
// and compliance_verify.go (a verification scan's observations). docs/compliance.md lists them.

// Rule families, in the order of a report's summary.
const (
	FamilyBanner      = "banner"
	FamilyConsent     = "consent"
	FamilyDeclaration = "declaration"
	FamilyEnforcement = "enforcement"
)

// ruleFamilies are the families, in summary order.
var ruleFamilies = [...]string{FamilyBanner, FamilyConsent, FamilyDeclaration, FamilyEnforcement}

// RuleFamilies returns the families, in summary order.
func RuleFamilies() []string { return slices.Clone(ruleFamilies[:]) }

// Consent lifetimes the rules measure banner.cookieExpirationDays against: at most 13 months
// (CNIL), and about six months recommended.
const (
	MaxConsentLifetimeDays         = 396
	RecommendedConsentLifetimeDays = 183
)

// MinButtonTextContrast is WCAG's minimum contrast of normal-size text (SC 1.4.3).
const MinButtonTextContrast = 4.5

// Prominence limits of the reject button against the accept button, by their contrast with
// the banner's background: below MinButtonVisibility (WCAG's 3:1 for user-interface
// components, SC 1.4.11) reject hardly stands out; below RejectProminenceShare of accept's
// contrast it is visibly the weaker choice.
const (
	MinButtonVisibility   = 3.0
	RejectProminenceShare = 0.8
)

// ruleText is one entry of compliance_rules.json.
type ruleText struct {
	Family   string `json:"family"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	Source   string `json:"source"`
	Fix      string `json:"fix"`
	// Detail is a template whose {name} placeholders are filled per finding.
	Detail string `json:"detail"`
}

//go:embed compliance_rules.json
var complianceRulesJSON []byte

var (
	ComplianceRules = mustRuleTexts(complianceRulesJSON)
	placeholder     = regexp.MustCompile(`\{([a-zA-Z]+)\}`)
)

func mustRuleTexts(b []byte) map[string]ruleText {
	var m map[string]ruleText
	if err := json.Unmarshal(b, &m); err != nil {
		panic("core: compliance_rules.json: " + err.Error())
	}
	for id, r := range m {
		if !slices.Contains(ruleFamilies[:], r.Family) || !slices.Contains(severities[:], r.Severity) ||
			!strings.HasPrefix(id, r.Family+".") || r.Title == "" || r.Source == "" || r.Fix == "" || r.Detail == "" {
			panic("core: compliance_rules.json: incomplete or inconsistent rule " + id)
		}
	}
	return m
}

// renderDetail fills a detail template; a placeholder without a value is left as it is (the
// rule-file test fails on it).
func renderDetail(tmpl string, params map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(p string) string {
		if v, ok := params[p[1:len(p)-1]]; ok {
			return v
		}
		return p
	})
}

// EvaluateCompliance applies the configuration rules to in (when not nil) and the verification
// rules to v, the observations of verification scan scanID (when not nil), and returns the
// report: findings sorted by severity, rule ID and evidence, a summary per family, and the
// verdict (verdictOf). lib is the service library, for the library category
// of services; now is GeneratedAt. The report's SiteID is in's banner's site, if any; the
// caller sets VerificationScanID's time (VerifiedAt).
func EvaluateCompliance(in *ComplianceInput, v *core.Verification, scanID string, lib core.Catalog, now time.Time) *ComplianceReport {
	e := &evaluation{checked: map[string]bool{}, groups: map[string]*pending{}, scanID: scanID, lib: lib, now: now}
	if in != nil {
		e.site = newSiteIndex(in)
		if in.Banner != nil {
			e.configRules(in, v)
			e.unheldServices(in)
		}
	}
	if v != nil {
		var b *banner.Banner
		if in != nil {
			b = in.Banner
		}
		e.verificationRules(v, b)
	}
	rep := &ComplianceReport{GeneratedAt: now.UTC(), Findings: e.finish()}
	if in != nil && in.Banner != nil {
		rep.SiteID = in.Banner.SiteID
	}
	if v != nil && scanID != "" {
		rep.VerificationScanID = &scanID
	}
	rep.Verdict = verdictOf(rep.Findings, v != nil)
	rep.Compliant = rep.Verdict == VerdictCompliant
	rep.Summary = e.summary(rep.Findings)
	rep.Rules = ruleResults(in, v, rep.Findings)
	return rep
}

// verdictOf judges findings: with a verification, compliant without an error finding; before
// one, not_compliant when an error rests on what a scan saw (the enforcement family), else
// unverified: the configuration alone never makes a site compliant.
func verdictOf(fs []Finding, verified bool) string {
	for _, f := range fs {
		if f.Severity == SeverityError && (verified || f.Family == FamilyEnforcement) {
			return VerdictNotCompliant
		}
	}
	if verified {
		return VerdictCompliant
	}
	return VerdictUnverified
}

// pending is a finding being collected: grouped findings count what they stand for, and a
// verification finding keeps every distinct request, cookie, description and page.
type pending struct {
	rule     string
	severity string
	params   map[string]string
	evidence Evidence
	more     int

	observed      bool // a verification finding: its evidence lists what it stands for
	reqs, cookies []string
	whats, pages  []string
	seen          map[string]bool
}

// note adds an observation's request, cookie, description and page to a verification finding.
func (p *pending) note(ev Evidence, what string) {
	if ev.Request == nil && ev.Cookie == nil {
		return
	}
	if p.seen == nil {
		p.seen, p.observed = map[string]bool{}, true
	}
	add := func(list *[]string, kind string, v *string) {
		if v != nil && *v != "" && !p.seen[kind+*v] {
			p.seen[kind+*v] = true
			*list = append(*list, *v)
		}
	}
	add(&p.reqs, "r", ev.Request)
	add(&p.cookies, "c", ev.Cookie)
	add(&p.whats, "w", &what)
	add(&p.pages, "p", ev.Page)
}

// bounded is the first MaxEvidenceItems of a list, and how many were left out.
func bounded(list []string) ([]string, int) {
	if len(list) > MaxEvidenceItems {
		return list[:MaxEvidenceItems], len(list) - MaxEvidenceItems
	}
	return list, 0
}

// moreDetail says, after a verification finding's first observation, what else it stands for:
// up to three more by name, then a count, and on how many pages.
func (p *pending) moreDetail() string {
	var b strings.Builder
	if extra := p.whats[min(1, len(p.whats)):]; len(extra) > 0 {
		b.WriteString("; also ")
		if len(extra) <= 3 {
			b.WriteString(strings.Join(extra, ", "))
		} else {
			fmt.Fprintf(&b, "%s and %d more (every one in the evidence)", strings.Join(extra[:3], ", "), len(extra)-3)
		}
	}
	if len(p.pages) > 1 {
		fmt.Fprintf(&b, "; on %d pages", len(p.pages))
	}
	return b.String()
}

// evaluation collects the checked rules and their findings.
type evaluation struct {
	checked map[string]bool
	list    []*pending
	groups  map[string]*pending
	scanID  string
	lib     core.Catalog
	site    *siteIndex
	// now is when the report is made: a law's requirement counts from its date.
	now time.Time
	// rule is the regional rule whose run is being judged ("" outside one): its findings'
	// evidence names it, and they group apart from other runs'.
	rule string
}

// check records that rules were checked, for the summary.
func (e *evaluation) check(rules ...string) {
	for _, r := range rules {
		if _, ok := ComplianceRules[r]; !ok {
			panic("core: compliance rule " + r + " has no entry in compliance_rules.json")
		}
		e.checked[r] = true
	}
}

// add records a finding of rule at severity ("" for the rule's own).
func (e *evaluation) add(rule, severity string, params map[string]string, ev Evidence) {
	e.check(rule)
	if severity == "" {
		severity = ComplianceRules[rule].Severity
	}
	if e.rule != "" && ev.Rule == nil {
		ev.Rule = strp(e.rule)
	}
	p := &pending{rule: rule, severity: severity, params: params, evidence: ev}
	p.note(ev, params["what"])
	e.list = append(e.list, p)
}

// addGrouped records a finding once per key: later ones only count, in the detail's {more}.
func (e *evaluation) addGrouped(key, rule string, params map[string]string, ev Evidence) {
	k := rule + "\x00" + e.rule + "\x00" + key
	if p, ok := e.groups[k]; ok {
		p.more++
		p.note(ev, params["what"])
		return
	}
	e.add(rule, "", params, ev)
	e.groups[k] = e.list[len(e.list)-1]
}

func (e *evaluation) finish() []Finding {
	out := make([]Finding, 0, len(e.list))
	for _, p := range e.list {
		r := ComplianceRules[p.rule]
		if _, ok := p.params["more"]; !ok {
			p.params["more"] = ""
		}
		switch {
		case p.observed:
			p.params["more"] = p.moreDetail()
			var lr, lc int
			p.evidence.Requests, lr = bounded(p.reqs)
			p.evidence.Cookies, lc = bounded(p.cookies)
			p.evidence.Omitted = lr + lc
		case p.more > 0:
			p.params["more"] = fmt.Sprintf(", and %d more like it", p.more)
		}
		out = append(out, Finding{RuleID: p.rule, Family: r.Family, Severity: p.severity, Title: r.Title,
			Source: r.Source, Fix: renderDetail(r.Fix, p.params), Detail: renderDetail(r.Detail, p.params), Evidence: p.evidence})
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if c := slices.Index(severities[:], a.Severity) - slices.Index(severities[:], b.Severity); c != 0 {
			return c
		}
		if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
			return c
		}
		return strings.Compare(a.Evidence.sortKey(), b.Evidence.sortKey())
	})
	return out
}

func (ev Evidence) sortKey() string {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return strings.Join([]string{s(ev.Field), s(ev.State), s(ev.Service), s(ev.Page), s(ev.Request), s(ev.Cookie), s(ev.Value)}, "\x00")
}

func (e *evaluation) summary(fs []Finding) []FamilySummary {
	out := make([]FamilySummary, 0, len(ruleFamilies))
	for _, fam := range ruleFamilies {
		s := FamilySummary{Family: fam}
		failed := map[string]bool{}
		for _, f := range fs {
			if f.Family != fam {
				continue
			}
			failed[f.RuleID] = true
			switch f.Severity {
			case SeverityError:
				s.Errors++
			case SeverityWarning:
				s.Warnings++
			default:
				s.Notices++
			}
		}
		for id := range e.checked {
			if ComplianceRules[id].Family == fam {
				s.Rules++
				if !failed[id] {
					s.Passed++
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// siteIndex is the site's configuration as the rules look it up.
type siteIndex struct {
	catByID   map[string]*banner.Category
	svcBySlug map[string]*banner.Service
}

func newSiteIndex(in *ComplianceInput) *siteIndex {
	x := &siteIndex{catByID: map[string]*banner.Category{}, svcBySlug: map[string]*banner.Service{}}
	for _, c := range in.Categories {
		x.catByID[c.ID] = c
	}
	for _, s := range in.Services {
		x.svcBySlug[s.Slug] = s
	}
	return x
}

// strp returns a pointer to s, nil for "".
func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// listed joins at most five names, saying how many more there are.
func listed(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
}
