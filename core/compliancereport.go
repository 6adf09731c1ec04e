package core

import "context"

// Compliance answers "am I compliant, and how do you know?" for a site.
type Compliance struct {
	store   Store
	catalog Catalog
	clock
	views *publicViews
	tcf   tcfDeps
}

// Report applies the compliance rules to the site's configuration (banner, categories,
// services) and to its latest completed verification scan, if any. not_found when the site is
// not the organization's.
func (compliance *Compliance) Report(ctx context.Context, orgID, siteID string) (*ComplianceReport, error) {
	if err := Authorize(ctx, PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	site, err := compliance.store.Site(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	now := compliance.now()
	// The public endpoints' view of the site: the configuration the runtime is served.
	v, err := compliance.views.site(ctx, site.ProjectKey, now)
	if err != nil {
		return nil, err
	}
	in := &ComplianceInput{Banner: v.banner, Categories: v.cats, Services: v.svcs, BlockingRules: blockingRulesOf(compliance.catalog, v.banner, v.cats, v.svcs)}
	if v.banner.TCF.Enabled {
		g, err := compliance.tcf.gvl(ctx)
		if err != nil {
			return nil, err
		}
		in.TCF = &TCFComplianceInput{CMPID: compliance.tcf.deployment.CMPID, GVL: g}
	}
	switch sc, err := compliance.store.LatestScan(ctx, site.ID, ScanCompleted); {
	case err == nil:
		in.Scan = sc
	case !IsNotFound(err):
		return nil, err
	}
	var ver *Verification
	var scanID string
	sc, err := compliance.store.LatestScanOfMode(ctx, site.ID, ScanVerify, ScanCompleted)
	switch {
	case err == nil && sc.Verification != nil:
		ver, scanID = sc.Verification, sc.ID
	case err != nil && !IsNotFound(err):
		return nil, err
	}
	rep := EvaluateCompliance(in, ver, scanID, compliance.catalog, now)
	rep.SiteID = site.ID
	if ver != nil {
		rep.VerifiedAt = sc.FinishedAt
	}
	return rep, nil
}
