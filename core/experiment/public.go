package experiment

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core/banner"
)

// The runtime's side of an experiment (docs/experiments.md). The loader inlines, only for a
// visitor an experiment runs for, a small script (bannerjs/experiment.js) with the variants'
// weights and, per variant, what it changes of the first view's configuration (Override): the
// script picks a variant at random in the shares of the weights, or the one kept with the
// visitor's decision in the consent cookie, lays its override on the configuration and names
// it there (variant, and x.variant, which the runtime posts with a decision and keeps in the
// cookie with it). Sites and visitors without an experiment load none of it.

// Public is what the loader inlines for a visitor of a running experiment.
type Public struct {
	// ID is the experiment's ID without dashes (the prefix of its variants' IDs).
	ID string `json:"i"`
	// Variants are [key, weight, override] triples, in the experiment's order.
	Variants [][3]any `json:"v"`
}

// Override is what a variant changes of the first view's configuration: its banner's
// template and position, its texts (in the configuration's language, for the visitor's
// behaviour), its policy's layer order. Empty parts are left out.
type Override struct {
	Banner map[string]string `json:"banner,omitempty"`
	Texts  map[string]string `json:"texts,omitempty"`
	Policy map[string]bool   `json:"policy,omitempty"`
}

// OverrideFor returns what p changes of cfg, the configuration of a visitor in cfg.Lang.
func OverrideFor(cfg *banner.PublicConfig, p Patch) Override {
	var o Override
	if p.Template != nil || p.Position != nil {
		o.Banner = map[string]string{}
		if p.Template != nil {
			o.Banner["template"] = *p.Template
		}
		if p.Position != nil {
			o.Banner["position"] = *p.Position
		}
	}
	// The texts as the configuration resolves them (SiteView.SiteTexts): overrides, then the
	// translations of the language; the notice's body in its opt-out wording for a visitor
	// under an opt-out rule.
	texts := maps.Clone(p.TextOverrides)
	for l, tr := range p.TextTranslations {
		if strings.EqualFold(l, cfg.Lang) {
			if texts == nil {
				texts = map[string]string{}
			}
			maps.Copy(texts, tr)
		}
	}
	if len(texts) > 0 {
		optOut := cfg.Banner != nil && cfg.Banner.BehaviorFor(cfg.VisitorRule()) == banner.BehaviorOptOut
		if body, ok := texts[banner.OptOutTextKey]; ok && optOut {
			texts["body"] = body
		} else if optOut {
			delete(texts, "body")
		}
		delete(texts, banner.OptOutTextKey)
		if len(texts) > 0 {
			o.Texts = texts
		}
	}
	if p.RejectOnFirstLayer != nil {
		o.Policy = map[string]bool{"rejectOnFirstLayer": *p.RejectOnFirstLayer}
	}
	return o
}

// runningTTL is how long a process keeps a site's running experiment (or its absence) before
// reading it again: another process's start or stop shows within it; this process's at once
// (Forget).
const runningTTL = 10 * time.Second

type runningEntry struct {
	e  *Experiment
	at time.Time
}

type runningCache struct {
	mu sync.Mutex
	m  map[string]runningEntry
}

// running returns the site's running experiment, nil when none runs.
func (x *Experiments) running(ctx context.Context, siteID string) (*Experiment, error) {
	now := x.Clock.Now()
	x.cache.mu.Lock()
	if en, ok := x.cache.m[siteID]; ok && now.Sub(en.at) < runningTTL {
		x.cache.mu.Unlock()
		return en.e, nil
	}
	x.cache.mu.Unlock()
	all, err := x.Store.Experiments(ctx, siteID)
	if err != nil {
		return nil, err
	}
	var run *Experiment
	for _, e := range all {
		if e.Status == StatusRunning {
			run = e
		}
	}
	x.cache.mu.Lock()
	if x.cache.m == nil || len(x.cache.m) > 10000 {
		x.cache.m = map[string]runningEntry{}
	}
	x.cache.m[siteID] = runningEntry{e: run, at: now}
	x.cache.mu.Unlock()
	return run, nil
}

// forget drops the site's cached running experiment.
func (x *Experiments) forget(siteID string) {
	x.cache.mu.Lock()
	delete(x.cache.m, siteID)
	x.cache.mu.Unlock()
	if x.Views != nil {
		x.Views.Forget(siteID)
	}
}

// ForVisitor returns what the loader inlines for the visitor cfg was decided for: nil when no
// experiment of the site runs for the visitor's place, when the visitor gets no banner
// (policy.ask false), or where the TCF applies (its own layers replace the banner).
func (x *Experiments) ForVisitor(ctx context.Context, cfg *banner.PublicConfig) (*Public, error) {
	if cfg == nil || cfg.Banner == nil || cfg.TCF || cfg.Policy == nil || !cfg.Policy.Ask {
		return nil, nil
	}
	e, err := x.running(ctx, cfg.Banner.SiteID)
	if err != nil || e == nil || !e.Runs(cfg.Location) {
		return nil, err
	}
	out := &Public{ID: strings.ReplaceAll(e.ID, "-", "")}
	for _, v := range e.Variants {
		out.Variants = append(out.Variants, [3]any{v.Key, v.Weight, OverrideFor(cfg, v.Patch)})
	}
	return out, nil
}
