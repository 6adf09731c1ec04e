package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/verifier"
)

// complianceDescription documents GET /sites/{id}/compliance in the OpenAPI document.
const complianceDescription = "Answers \"am I compliant, and how do you know?\". The report's findings come from two sources: " +
	"the configuration rules, computed from the site's banner, categories and services as the runtime applies them " +
	"(reject on the first layer and as prominent as accept, button text contrast of at least 4.5:1, no category on before " +
	"a decision for EU visitors, no pre-ticked boxes, a consent lifetime of at most 13 months, a privacy-policy link, a " +
	"lasting way to change consent, cookie durations declared, no tracker classed as essential, Google Consent Mode, GPC); " +
	"and the verification rules, applied to the latest completed verification scan (POST /sites/{id}/scan with mode " +
	"verify), which loaded the site's pages once per consent state: what ran before a decision, after \"reject all\", " +
	"after withdrawal and with one category accepted that the state does not allow, and held tags the browser fetched " +
	"anyway. Without such a scan (verificationScanId null) only the configuration is judged.\n\n" +
	"Each finding has a stable rule ID (banner.*, consent.*, declaration.*, enforcement.*; listed in docs/compliance.md), " +
	"a severity (error: breaks the rule; warning: likely to; notice: to review), the regulation or guidance it comes " +
	"from, the evidence (a configuration field and value, or the scan, state, page, request, cookie, service and category) " +
	"and the fix in one sentence. Findings are sorted by severity, rule ID and evidence; observations of one rule, service " +
	"and state are one finding whose detail counts the others. The summary counts, per rule family, the rules checked, " +
	"those passed and the findings by severity; compliant is true when no finding is an error. " +
	"`consentd verify --json` prints this same document."

func (h *handlers) registerCompliance(api huma.API) {
	o := op("getCompliance", http.MethodGet, "/sites/{id}/compliance", "Compliance report", "Compliance", 0)
	o.Description = complianceDescription
	huma.Register(api, o, func(ctx context.Context, in *SiteIDPath) (*struct{ Body *scan.ComplianceReport }, error) {
		r, err := h.m.Report(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *scan.ComplianceReport }{r}, nil
	})
}

// registerVerifier is the verifier's credential for a caller's own verification (consentd
// verify with an API key).
func (h *handlers) registerVerifier(api huma.API) {
	o := op("issueVerifierCredential", http.MethodPost, "/sites/{id}/verifier-credential", "Issue a verifier's credential", "Compliance", http.StatusCreated)
	o.Description = "A short-lived credential (30 minutes) for one verification of this site, and one place per regional rule of the site, a place that rule covers. " +
		"Sent as Consentd-Verifier with Consentd-Verifier-Location naming a place, on requests to this site's public endpoints, it makes the request a visitor's from that place; " +
		"decisions posted with it are answered as usual but stored nowhere (no record, chain entry, statistics, export or webhook). Without a valid credential those headers change nothing. " +
		"`consentd verify --api-key` asks for one; verification scans get theirs from the server. Needs the configure permission; audited as verifier.issue."
	huma.Register(api, o, func(ctx context.Context, in *SiteIDPath) (*struct{ Body *verifier.Issued }, error) {
		if h.m.VerifierUseCases == nil {
			return nil, h.fail(ctx, core.Errorf(core.CodeInternal, "no verifier"))
		}
		r, err := h.m.IssueForSite(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *verifier.Issued }{r}, nil
	})
}
