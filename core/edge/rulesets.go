package edge

import (
	"context"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// RuleSets serve the rule sets of sites, from the public endpoints' cached view of each
// (banner.PublicViews: a change to a site reaches them at once on this node, within a second
// on the others).
type RuleSets struct {
	Views   *banner.PublicViews
	Catalog core.Catalog
	Clock   core.Clock
}

// EdgeRuleSet returns the rule set of the site named by projectKey; not_found when there is no
// such site.
func (rs *RuleSets) EdgeRuleSet(ctx context.Context, projectKey string) (*RuleSet, error) {
	v, err := rs.Views.Site(ctx, projectKey, rs.Clock())
	if err != nil {
		return nil, err
	}
	return RuleSetOf(rs.Catalog, v.Site, v.Banner, v.Cats, v.Svcs), nil
}
