package scan

import (
	"context"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/tcf"
)

// Compliance answers "am I compliant, and how do you know?" for a site.
type Compliance struct {
	Store   Store
	Catalog core.Catalog
	Clock   core.Clock
	Views   *banner.PublicViews
	TCF     tcf.Ports
}

// Report applies the compliance rules to the site's configuration (banner, categories,
// services) and to its latest completed verification scan, if any. not_found when the site is
// not the organization's.
func (compliance *Compliance) Report(ctx context.Context, orgID, siteID string) (*ComplianceReport, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	site, err := compliance.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	now := compliance.Clock.Now()
	// The public endpoints' view of the site: the configuration the runtime is served.
	v, err := compliance.Views.Site(ctx, site.ProjectKey, now)
	if err != nil {
		return nil, err
	}
	in := &ComplianceInput{Banner: v.Banner, Categories: v.Cats, Services: v.Svcs, BlockingRules: banner.BlockingRulesOf(compliance.Catalog, v.Banner, v.Cats, v.Svcs)}
	if v.Banner.TCF.Enabled {
		g, err := compliance.TCF.GVL(ctx)
		if err != nil {
			return nil, err
		}
		ac, err := compliance.TCF.ACProviders(ctx)
		if err != nil {
			return nil, err
		}
		in.TCF = &TCFComplianceInput{CMPID: compliance.TCF.Deployment.CMPID, GVL: g, AC: ac}
	}
	switch sc, err := compliance.Store.LatestScan(ctx, site.ID, ScanCompleted); {
	case err == nil:
		in.Scan = sc
	case !core.IsNotFound(err):
		return nil, err
	}
	var ver *core.Verification
	var scanID string
	sc, err := compliance.Store.LatestScanOfMode(ctx, site.ID, core.ScanVerify, ScanCompleted)
	switch {
	case err == nil && sc.Verification != nil:
		ver, scanID = sc.Verification, sc.ID
	case err != nil && !core.IsNotFound(err):
		return nil, err
	}
	rep := EvaluateCompliance(in, ver, scanID, compliance.Catalog, now)
	rep.SiteID = site.ID
	if ver != nil {
		rep.VerifiedAt = sc.FinishedAt
	}
	return rep, nil
}
