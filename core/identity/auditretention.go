package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consentd/consentd/core"
)

// auditRetentionStep is how many entries one store call removes, so that a long backlog is
// removed in bounded transactions.
const auditRetentionStep = 1000

// errAuditKept stops the walk of an organization's log at its first entry still retained.
var errAuditKept = errors.New("audit entry retained")

// ApplyAuditRetention removes the audit entries the records' retention has expired, and
// returns how many it removed. It needs Deps.AllSites. An entry of a site follows that site's
// consentRetentionDays; an entry of the organization (no site, or a site since deleted)
// follows the longest retention of the organization's sites, and is kept when one of them
// keeps its records for ever or the organization has no site. Entries go oldest first and
// only while every older entry has gone too, so that the kept entries remain one chain after
// the anchor (the last removed): an expired entry behind a retained one waits for it. One
// organization's failure does not stop the others; the errors are returned together.
func (auditLog *AuditLog) ApplyAuditRetention(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	if auditLog.AllSites == nil {
		return 0, core.Errorf(core.CodeInternal, "audit retention needs a site lister")
	}
	now := auditLog.Clock.Now()
	// days of every site (nil: kept for ever), by organization, in the order they are met.
	days := map[string]map[string]*int{}
	var orgs []string
	for after := ""; ; {
		sites, err := auditLog.AllSites.AllSites(ctx, after, 500)
		if err != nil {
			return 0, err
		}
		for _, s := range sites {
			if days[s.OrganizationID] == nil {
				days[s.OrganizationID] = map[string]*int{}
				orgs = append(orgs, s.OrganizationID)
			}
			days[s.OrganizationID][s.ID] = s.ConsentRetentionDays
		}
		if len(sites) < 500 {
			break
		}
		after = sites[len(sites)-1].ID
	}
	removed := 0
	var errs []error
	for _, org := range orgs {
		n, err := auditLog.removeExpiredAudit(ctx, org, days[org], now)
		removed += n
		if err != nil {
			errs = append(errs, fmt.Errorf("organization %s: %w", org, err))
		}
	}
	return removed, errors.Join(errs...)
}

// orgAuditRetention is the retention of an organization's own entries: the longest of its
// sites', nil (for ever) when one of them has none.
func orgAuditRetention(sites map[string]*int) *int {
	var longest *int
	for _, d := range sites {
		if d == nil {
			return nil
		}
		if longest == nil || *d > *longest {
			longest = d
		}
	}
	return longest
}

func (auditLog *AuditLog) removeExpiredAudit(ctx context.Context, orgID string, sites map[string]*int, now time.Time) (int, error) {
	orgDays := orgAuditRetention(sites)
	removed := 0
	for {
		var through int64
		n := 0
		err := auditLog.Store.EachAuditEntry(ctx, orgID, func(e *core.AuditEntry) error {
			d, ok := sites[e.SiteID]
			if e.SiteID == "" || !ok {
				d = orgDays
			}
			if d == nil || !e.CreatedAt.Before(now.AddDate(0, 0, -*d)) || n == auditRetentionStep {
				return errAuditKept
			}
			through, n = e.Seq, n+1
			return nil
		})
		if err != nil && !errors.Is(err, errAuditKept) {
			return removed, err
		}
		if n == 0 {
			return removed, nil
		}
		k, err := auditLog.Store.RemoveAuditEntries(ctx, orgID, through)
		removed += k
		if err != nil || k == 0 {
			return removed, err
		}
		if n < auditRetentionStep {
			return removed, nil
		}
	}
}
