package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
)

// Audit actions of experiments (core.AuditActions lists them).
const (
	AuditCreate  = core.AuditExperimentCreate
	AuditStart   = core.AuditExperimentStart
	AuditStop    = core.AuditExperimentStop
	AuditPromote = core.AuditExperimentPromote
)

// Banners is what experiments need of the banner's use cases: a variant previewed on the
// banner (checked by the banner's own checks), and the winner promoted (an audited banner
// patch).
type Banners interface {
	PreviewBanner(ctx context.Context, orgID, siteID string, p banner.BannerPatch) (*banner.Banner, error)
	PatchBanner(ctx context.Context, orgID, siteID string, p banner.BannerPatch) (*banner.Banner, error)
}

// Counts are a variant's figures over a period, from the analytics.
type Counts struct {
	Shown     int64 `json:"shown"`
	Decided   int64 `json:"decided"`
	AcceptAll int64 `json:"acceptAll"`
	RejectAll int64 `json:"rejectAll"`
	Custom    int64 `json:"custom"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Shown += o.Shown
	c.Decided += o.Decided
	c.AcceptAll += o.AcceptAll
	c.RejectAll += o.RejectAll
	c.Custom += o.Custom
}

// Day is one day's counts per variant ID (VariantID).
type Day struct {
	Day      time.Time
	Variants map[string]Counts
}

// Counter reads an experiment's counts from the analytics: per UTC day in [from, to), the
// counts of each of variantIDs, the days in order. Errors: unavailable, internal.
type Counter interface {
	ExperimentDays(ctx context.Context, siteID string, from, to time.Time, variantIDs []string) ([]Day, error)
}

// Forgetter drops a site's cached public views (its loader and configuration), so that a
// started or stopped experiment shows at once.
type Forgetter interface{ Forget(siteID string) }

// Experiments are the use cases of A/B tests.
type Experiments struct {
	Store   Store
	Banners Banners
	Counter Counter
	Views   Forgetter
	Clock   core.Clock
	NewID   func() string
	Audit   core.Auditor
	// cache keeps each site's running experiment for the public endpoints (public.go).
	cache runningCache
}

// VariantID is a variant's ID in the runtime's storage, the consent records and the
// analytics: the experiment's ID without dashes, an underscore and the variant's key (at most
// 64 characters: the analytics' bound).
func VariantID(experimentID, key string) string {
	return strings.ReplaceAll(experimentID, "-", "") + "_" + key
}

// Create stores a draft experiment of the site.
func (x *Experiments) Create(ctx context.Context, orgID, siteID string, d Draft) (*Experiment, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	d, err := d.check()
	if err != nil {
		return nil, err
	}
	if _, err := x.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	// Each variant's patch passes the banner's own checks now, not only when it starts.
	for i, v := range d.Variants {
		if _, err := x.Banners.PreviewBanner(ctx, orgID, siteID, v.Patch.BannerPatch()); err != nil {
			return nil, prefixField(err, fieldf("variants", i, ".patch."))
		}
	}
	now := x.Clock.Now()
	e := &Experiment{ID: x.NewID(), SiteID: siteID, Name: d.Name, Status: StatusDraft, Metric: d.Metric, Regions: d.Regions,
		Variants: d.Variants, CreatedAt: now, UpdatedAt: now}
	err = x.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateExperiment(ctx, e); err != nil {
			return err
		}
		return x.Audit.Record(ctx, tx, orgID, siteID, AuditCreate, e.ID, nil, e)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// prefixField puts prefix before a field error's field (a variant's patch checked as a banner
// patch names the banner's field).
func prefixField(err error, prefix string) error {
	if f := core.ErrorField(err); f != "" {
		var ce *core.Error
		if errors.As(err, &ce) {
			out := *ce
			out.Field = prefix + f
			out.Message = prefix + ce.Message
			return &out
		}
	}
	return err
}

// List returns the site's experiments, the newest first.
func (x *Experiments) List(ctx context.Context, orgID, siteID string) ([]*Experiment, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := x.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return x.Store.Experiments(ctx, siteID)
}

// Get returns an experiment of the site.
func (x *Experiments) Get(ctx context.Context, orgID, siteID, id string) (*Experiment, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := x.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return x.Store.Experiment(ctx, siteID, id)
}

// Start runs a draft experiment: conflict when it is not a draft or another experiment of the
// site runs; validation_error naming the compliance rule when a variant breaks one at a place
// the experiment would run (Guard).
func (x *Experiments) Start(ctx context.Context, orgID, siteID, id string) (*Experiment, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	e, err := x.Get(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	if e.Status != StatusDraft {
		return nil, core.Errorf(core.CodeConflict, "experiment %s is %s: only a draft starts", e.ID, e.Status)
	}
	if err := x.Guard(ctx, orgID, siteID, e); err != nil {
		return nil, err
	}
	return x.transition(ctx, orgID, siteID, id, AuditStart, func(tx Store, e *Experiment, now time.Time) error {
		if e.Status != StatusDraft {
			return core.Errorf(core.CodeConflict, "experiment %s is %s: only a draft starts", e.ID, e.Status)
		}
		all, err := tx.Experiments(ctx, siteID)
		if err != nil {
			return err
		}
		for _, o := range all {
			if o.Status == StatusRunning {
				return core.Errorf(core.CodeConflict, "experiment %s (%s) is running on this site: stop it first", o.ID, o.Name)
			}
		}
		e.Status, e.StartedAt = StatusRunning, &now
		return nil
	})
}

// Stop ends a running experiment; its results stay.
func (x *Experiments) Stop(ctx context.Context, orgID, siteID, id string) (*Experiment, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	return x.transition(ctx, orgID, siteID, id, AuditStop, func(_ Store, e *Experiment, now time.Time) error {
		if e.Status != StatusRunning {
			return core.Errorf(core.CodeConflict, "experiment %s is %s: only a running experiment stops", e.ID, e.Status)
		}
		e.Status, e.StoppedAt = StatusStopped, &now
		return nil
	})
}

// Promote makes variant key the banner (an audited banner patch, as PATCH /banner) and ends
// the experiment (stopped first when running). A variant that changes the layer order is not
// promoted: the first layer's reject is the banner's regional rules' rejectOnFirstLayer,
// which a site owner sets per place.
func (x *Experiments) Promote(ctx context.Context, orgID, siteID, id, key string) (*Experiment, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	e, err := x.Get(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	v, ok := e.Variant(key)
	if !ok {
		return nil, core.FieldErrorf("variant", "experiment %s has no variant %q", e.ID, key)
	}
	if e.Status == StatusDraft || e.Status == StatusPromoted {
		return nil, core.Errorf(core.CodeConflict, "experiment %s is %s: only a running or stopped experiment is promoted", e.ID, e.Status)
	}
	if v.Patch.RejectOnFirstLayer != nil {
		return nil, core.FieldErrorf("variant", "variant %q changes the layer order, which is the banner's regionRules[].rejectOnFirstLayer: set it there", key)
	}
	if !v.Patch.Empty() {
		if _, err := x.Banners.PatchBanner(ctx, orgID, siteID, v.Patch.BannerPatch()); err != nil {
			return nil, err
		}
	}
	return x.transition(ctx, orgID, siteID, id, AuditPromote, func(_ Store, e *Experiment, now time.Time) error {
		if e.Status == StatusPromoted {
			return core.Errorf(core.CodeConflict, "experiment %s is already promoted", e.ID)
		}
		if e.StoppedAt == nil {
			e.StoppedAt = &now
		}
		e.Status, e.Winner = StatusPromoted, &key
		return nil
	})
}

// transition changes an experiment in a transaction with its audit entry.
func (x *Experiments) transition(ctx context.Context, orgID, siteID, id, action string, change func(tx Store, e *Experiment, now time.Time) error) (*Experiment, error) {
	if _, err := x.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	defer x.forget(siteID)
	var out *Experiment
	err := x.Store.InTx(ctx, func(tx Store) error {
		e, err := tx.Experiment(ctx, siteID, id)
		if err != nil {
			return err
		}
		old := *e
		now := x.Clock.Now()
		if err := change(tx, e, now); err != nil {
			return err
		}
		e.UpdatedAt = now
		if err := tx.UpdateExperiment(ctx, e); err != nil {
			return err
		}
		out = e
		return x.Audit.Record(ctx, tx, orgID, siteID, action, e.ID, &old, e)
	})
	return out, err
}

// Guard refuses an experiment with a variant that would break, at a place it runs, a
// compliance rule the banner keeps there (scan.PlaceFailures: the compliance report's region
// rules, judged for the visitor's policy with the variant applied): a validation_error naming
// the variant, the rule, its title and the places. Where no rule requires what the variant
// changes, it may run.
func (x *Experiments) Guard(ctx context.Context, orgID, siteID string, e *Experiment) error {
	base, err := x.Banners.PreviewBanner(ctx, orgID, siteID, banner.BannerPatch{})
	if err != nil {
		return err
	}
	cats, err := x.Store.Categories(ctx, siteID)
	if err != nil {
		return err
	}
	now := x.Clock.Now()
	scope := e.Scope()
	var places []core.Location
	for _, loc := range scan.JudgedPlaces(now) {
		if scope.VisitorRule(loc).Rule != nil {
			places = append(places, loc)
		}
	}
	baseFails := map[core.Location][]string{}
	for _, loc := range places {
		vr := base.VisitorRule(loc)
		baseFails[loc] = scan.PlaceFailures(loc, base.BehaviorFor(vr), banner.DecidePolicy(base, cats, vr), now)
	}
	for i, v := range e.Variants {
		vb, err := x.Banners.PreviewBanner(ctx, orgID, siteID, v.Patch.BannerPatch())
		if err != nil {
			return prefixField(err, fieldf("variants", i, ".patch."))
		}
		broken := map[string][]string{}
		var order []string
		for _, loc := range places {
			vr := vb.VisitorRule(loc)
			p := banner.DecidePolicy(vb, cats, vr)
			v.Patch.ApplyPolicy(p)
			for _, id := range scan.PlaceFailures(loc, vb.BehaviorFor(vr), p, now) {
				if slices.Contains(baseFails[loc], id) {
					continue
				}
				if broken[id] == nil {
					order = append(order, id)
				}
				name := loc.Country
				if loc.Region != "" {
					name = loc.Region
				}
				broken[id] = append(broken[id], name)
			}
		}
		if len(order) > 0 {
			id := order[0]
			return core.FieldErrorf(fieldf("variants", i, ".patch"), "variant %q cannot run in %s: it breaks the compliance rule %s (%s), which the banner keeps there; limit the experiment's regions to places no rule requires it",
				v.Key, listed(broken[id]), id, scan.RuleTitle(id))
		}
	}
	return nil
}

func listed(names []string) string {
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return strings.Join(names, ", ")
}
