// Package experiment is the A/B tests of a site's banner: an experiment shows each visitor one
// of its variants (a banner patch applied on top of the banner), chosen at random by the
// runtime in the shares of the traffic split, measures a goal metric per variant from the
// analytics' counts, calls a winner with a sequential test that stays valid however often it is
// read (stats.go), and promotes the winner into the banner. docs/experiments.md describes it.
package experiment

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// Status is where an experiment is in its life: draft (created, editable by nothing but a
// new experiment), running (the runtime shows its variants), stopped (no longer shown; its
// results stay) or promoted (stopped, and one variant became the banner).
type Status string

// The statuses.
const (
	StatusDraft    Status = "draft"
	StatusRunning  Status = "running"
	StatusStopped  Status = "stopped"
	StatusPromoted Status = "promoted"
)

// Statuses returns the valid statuses.
func Statuses() []string {
	return []string{string(StatusDraft), string(StatusRunning), string(StatusStopped), string(StatusPromoted)}
}

// Goal metrics: what a variant is measured by, as a share of the banners shown (the analytics'
// figures, core/analytics).
const (
	// MetricConsentRate: decisions (any: accept all, reject all, a saved choice) per banner
	// shown, the analytics' consentRate.
	MetricConsentRate = "consent_rate"
	// MetricAcceptAllRate: "accept all" per banner shown.
	MetricAcceptAllRate = "accept_all_rate"
)

// Metrics returns the goal metrics.
func Metrics() []string { return []string{MetricConsentRate, MetricAcceptAllRate} }

// Limits of an experiment.
const (
	MinVariants = 2
	MaxVariants = 4
	MaxName     = 100
	// MaxKey bounds a variant's key (KeyPattern), so that its ID (VariantID) fits the
	// analytics' 64 characters.
	MaxKey     = 31
	MaxRegions = banner.MaxRuleRegions
	// TotalWeight is what the variants' weights add up to: each weight is a percentage.
	TotalWeight = 100
)

var keyPattern = regexp.MustCompile(KeyPattern)

// KeyPattern is what a variant's key looks like.
const KeyPattern = `^[a-z0-9][a-z0-9-]{0,30}$`

// VariantIDPattern is the form of a variant's ID (VariantID) as the runtime posts it with a
// decision.
const VariantIDPattern = `^[0-9a-f]{32}_[a-z0-9][a-z0-9-]{0,30}$`

var variantIDPattern = regexp.MustCompile(VariantIDPattern)

// MaxVariantID is the longest variant ID: 32 hexadecimal digits, _ and a key of MaxKey.
const MaxVariantID = 32 + 1 + MaxKey

// ValidVariantID reports whether id is "" (no experiment) or has the form of a variant's ID.
func ValidVariantID(id string) bool { return id == "" || variantIDPattern.MatchString(id) }

// Experiment is an A/B test of a site's banner.
type Experiment struct {
	ID     string `json:"id"`
	SiteID string `json:"siteId"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Metric is the goal metric, one of Metrics.
	Metric string `json:"metric"`
	// Regions are where the experiment runs, as regional rules name places (banner.RegionRule:
	// countries, subdivisions, groups, * and unknown); visitors elsewhere see the banner.
	Regions []string `json:"regions"`
	// Variants are shown in the shares of their weights; the first is the control the others
	// are compared with.
	Variants []Variant `json:"variants"`
	// Winner is the variant promoted into the banner, nil until one is.
	Winner    *string    `json:"winner"`
	StartedAt *time.Time `json:"startedAt"`
	StoppedAt *time.Time `json:"stoppedAt"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Variant is one arm of an experiment: a patch of the banner and its share of the traffic.
type Variant struct {
	// Key names the variant in the runtime's storage, the consent records and the analytics.
	Key    string `json:"key"`
	Name   string `json:"name"`
	Weight int    `json:"weight"`
	Patch  Patch  `json:"patch"`
}

// Patch is what a variant changes of the banner: a banner.BannerPatch of the fields a visitor
// sees (checked by the banner's own checks), and the order of the layers (whether "Reject all"
// is on the first layer or only in the preferences).
type Patch struct {
	Template         *string                      `json:"template,omitempty"`
	Position         *string                      `json:"position,omitempty"`
	TextOverrides    map[string]string            `json:"textOverrides,omitempty"`
	TextTranslations map[string]map[string]string `json:"textTranslations,omitempty"`
	// RejectOnFirstLayer false moves "Reject all" to the preferences (the second layer); nil
	// keeps what the visitor's rule says.
	RejectOnFirstLayer *bool `json:"rejectOnFirstLayer,omitempty"`
}

// BannerPatch is the patch of the banner the variant makes (without the layer order, which is
// the policy's: ApplyPolicy).
func (p Patch) BannerPatch() banner.BannerPatch {
	return banner.BannerPatch{Template: p.Template, Position: p.Position, TextOverrides: p.TextOverrides, TextTranslations: p.TextTranslations}
}

// ApplyPolicy makes the variant's layer order the policy's.
func (p Patch) ApplyPolicy(pol *banner.Policy) {
	if p.RejectOnFirstLayer != nil {
		pol.RejectOnFirstLayer = *p.RejectOnFirstLayer
	}
}

// Empty reports whether the patch changes nothing (a control).
func (p Patch) Empty() bool {
	return p.Template == nil && p.Position == nil && len(p.TextOverrides) == 0 && len(p.TextTranslations) == 0 && p.RejectOnFirstLayer == nil
}

// Variant returns the variant of key, false without one.
func (e *Experiment) Variant(key string) (Variant, bool) {
	for _, v := range e.Variants {
		if v.Key == key {
			return v, true
		}
	}
	return Variant{}, false
}

// Scope is a banner whose one regional rule names the experiment's places, so that whether a
// visitor is in them is decided as a regional rule's places are (Banner.VisitorRule).
func (e *Experiment) Scope() *banner.Banner {
	regions := e.Regions
	if len(regions) == 0 {
		regions = []string{core.RegionAny, core.RegionUnknown}
	}
	return &banner.Banner{RegionRules: []banner.RegionRule{{Regions: regions}}}
}

// Runs reports whether the experiment shows its variants to a visitor at loc.
func (e *Experiment) Runs(loc core.Location) bool {
	return e.Status == StatusRunning && e.Scope().VisitorRule(loc).Rule != nil
}

// Draft is an experiment as created: name, goal, places and variants.
type Draft struct {
	Name     string
	Metric   string
	Regions  []string
	Variants []Variant
}

// check validates d and returns it cleaned (names trimmed, region codes deduplicated).
func (d Draft) check() (Draft, error) {
	d.Name = strings.TrimSpace(d.Name)
	if n := utf8.RuneCountInString(d.Name); n < 1 || n > MaxName {
		return d, core.FieldErrorf("name", "must be 1 to %d characters", MaxName)
	}
	if err := core.CheckText("name", d.Name); err != nil {
		return d, err
	}
	if !slices.Contains(Metrics(), d.Metric) {
		return d, core.FieldErrorf("metric", "must be one of %v", Metrics())
	}
	if len(d.Regions) > MaxRegions {
		return d, core.FieldErrorf("regions", "must list at most %d region codes", MaxRegions)
	}
	regions := []string{}
	for i, code := range d.Regions {
		code = strings.TrimSpace(code)
		if err := core.CheckRegionCode(fieldf("regions", i, ""), code); err != nil {
			return d, err
		}
		if !slices.Contains(regions, code) {
			regions = append(regions, code)
		}
	}
	d.Regions = regions
	total := 0
	vs := make([]Variant, len(d.Variants))
	for i, v := range d.Variants {
		v.Name = strings.TrimSpace(v.Name)
		if !keyPattern.MatchString(v.Key) {
			return d, core.FieldErrorf(fieldf("variants", i, ".key"), "must match %s", KeyPattern)
		}
		for _, w := range vs[:i] {
			if w.Key == v.Key {
				return d, core.FieldErrorf(fieldf("variants", i, ".key"), "%q names two variants", v.Key)
			}
		}
		if n := utf8.RuneCountInString(v.Name); n > MaxName {
			return d, core.FieldErrorf(fieldf("variants", i, ".name"), "must be at most %d characters", MaxName)
		}
		if v.Name == "" {
			v.Name = v.Key
		}
		if err := core.CheckText(fieldf("variants", i, ".name"), v.Name); err != nil {
			return d, err
		}
		if v.Weight < 1 || v.Weight > TotalWeight-1 {
			return d, core.FieldErrorf(fieldf("variants", i, ".weight"), "must be 1 to %d (a percentage)", TotalWeight-1)
		}
		total += v.Weight
		vs[i] = v
	}
	if len(d.Variants) < MinVariants || len(d.Variants) > MaxVariants {
		return d, core.FieldErrorf("variants", "must have %d to %d variants", MinVariants, MaxVariants)
	}
	if total != TotalWeight {
		return d, core.FieldErrorf("variants", "the weights add up to %d, not %d", total, TotalWeight)
	}
	d.Variants = vs
	return d, nil
}

func fieldf(name string, i int, leaf string) string {
	return name + "[" + strconv.Itoa(i) + "]" + leaf
}

// Store persists experiments; adapters implement it (the experiments table).
type Store interface {
	ExperimentStore
	// Site finds a site of the organization; not_found otherwise.
	Site(ctx context.Context, orgID, id string) (*core.Site, error)
	// Categories returns a site's categories.
	Categories(ctx context.Context, siteID string) ([]*banner.Category, error)
	core.AuditWriter
	// InTx runs fn in a transaction: fn's writes through tx commit together when it returns
	// nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
}

// ExperimentStore keeps experiments.
type ExperimentStore interface {
	// CreateExperiment stores e; conflict when its ID exists.
	CreateExperiment(ctx context.Context, e *Experiment) error
	// Experiment finds an experiment of the site; not_found otherwise.
	Experiment(ctx context.Context, siteID, id string) (*Experiment, error)
	// Experiments lists the site's experiments, the newest first.
	Experiments(ctx context.Context, siteID string) ([]*Experiment, error)
	// UpdateExperiment stores every field of e; not_found when it does not exist.
	UpdateExperiment(ctx context.Context, e *Experiment) error
}
