package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/experiment"
)

// ExperimentUseCases manage a site's A/B tests of its banner (core/experiment).
type ExperimentUseCases interface {
	Create(ctx context.Context, orgID, siteID string, d experiment.Draft) (*experiment.Experiment, error)
	List(ctx context.Context, orgID, siteID string) ([]*experiment.Experiment, error)
	Get(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Start(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Stop(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Promote(ctx context.Context, orgID, siteID, id, key string) (*experiment.Experiment, error)
	Results(ctx context.Context, orgID, siteID, id string) (*experiment.Results, error)
	ForVisitor(ctx context.Context, cfg *banner.PublicConfig) (*experiment.Public, error)
}

// experimentScript is the variant picker for the visitor of the loader, nil where no experiment
// runs for them (a failure to read it shows the banner: the experiment is not worth a failed
// loader).
func (h *handlers) experimentScript(ctx context.Context, projectKey string, lp LanguageParams) []byte {
	if h.cfg.ExperimentScript == nil || h.m.ExperimentUseCases == nil {
		return nil
	}
	prefs, err := lp.prefs()
	if err != nil {
		return nil
	}
	cfg, err := h.m.PublicConfig(ctx, projectKey, locationOf(ctx), prefs...)
	if err != nil {
		return nil
	}
	x, err := h.m.ExperimentUseCases.ForVisitor(ctx, cfg)
	if err != nil {
		h.log.ErrorContext(ctx, "experiment of the loader", "projectKey", projectKey, "err", err)
		return nil
	}
	if x == nil {
		return nil
	}
	conf, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	return append(h.cfg.ExperimentScript(conf), ";\n"...)
}

// ExperimentPath names an experiment of a site.
type ExperimentPath struct {
	SiteIDPath
	ExperimentID string `path:"experimentId" doc:"Experiment ID (UUID)."`
}

// variantPatchBody is what a variant changes of the banner.
type variantPatchBody struct {
	Template           *string                      `json:"template,omitempty" enum:"floating,wide_bar,modal" doc:"The banner's template for this variant."`
	Position           *string                      `json:"position,omitempty" enum:"bottom_left,bottom_right,top_left,top_right,bottom,top,center" doc:"The banner's position for this variant."`
	TextOverrides      map[string]string            `json:"textOverrides,omitempty" doc:"Texts over the banner's (keys as banner.textOverrides: headline, body, acceptLabel, rejectLabel, preferencesLabel, privacyLabel...), merged key by key."`
	TextTranslations   map[string]map[string]string `json:"textTranslations,omitempty" doc:"Per language, texts over the banner's textTranslations."`
	RejectOnFirstLayer *bool                        `json:"rejectOnFirstLayer,omitempty" doc:"The layer order: false moves Reject all from the first layer to the preferences. A variant that would do so where a compliance rule requires reject on the first layer (consent.region-europe-opt-in: an opt-in rule in Europe) cannot start there (400 naming the rule)."`
}

type variantBody struct {
	Key    string           `json:"key" pattern:"^[a-z0-9][a-z0-9-]{0,30}$" doc:"The variant's key: in its ID (experimentId without dashes, _, key) in the consent records and the analytics."`
	Name   string           `json:"name,omitempty" maxLength:"100" doc:"Display name (default: the key)."`
	Weight int              `json:"weight" minimum:"1" maximum:"99" doc:"Share of the traffic in percent; the variants' weights add up to 100."`
	Patch  variantPatchBody `json:"patch,omitempty" doc:"What the variant changes of the banner, checked as PATCH /sites/{id}/banner checks it; empty for the control."`
}

const experimentsDoc = "An experiment (A/B test) shows each visitor in its regions one of its variants, picked at random by the banner " +
	"runtime in the shares of the weights and kept with the visitor's decision in the consent cookie; every consent record names its variant. " +
	"The first variant is the control the others are compared with. docs/experiments.md describes the design and the statistics."

type experimentCreateBody struct {
	Name     string        `json:"name" minLength:"1" maxLength:"100"`
	Metric   string        `json:"metric" enum:"consent_rate,accept_all_rate" doc:"The goal: consent_rate is decisions per banner shown (the analytics' consentRate), accept_all_rate is Accept all per banner shown."`
	Regions  []string      `json:"regions,omitempty" maxItems:"300" doc:"Where the experiment runs, as regional rules name places (countries, subdivisions, EU, EEA, US-STATE-LAWS, *, unknown); absent or empty: everywhere."`
	Variants []variantBody `json:"variants" minItems:"2" maxItems:"4"`
}

// TransformSchema declares the region codes core knows (core.RegionCodes) as the enum of
// regions' items, as regional rules do.
func (experimentCreateBody) TransformSchema(r huma.Registry, s *huma.Schema) *huma.Schema {
	return regionRuleIn{}.TransformSchema(r, s)
}

type experimentPromoteBody struct {
	Variant string `json:"variant" minLength:"1" maxLength:"31" doc:"The key of the variant to promote (the results' winner, or any other)."`
}

func (h *handlers) registerExperiments(api huma.API) {
	o := op("createExperiment", http.MethodPost, "/sites/{id}/experiments", "Create an experiment", "Experiments", http.StatusCreated)
	o.Description = "Creates a draft experiment. " + experimentsDoc
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body experimentCreateBody
	}) (*struct{ Body *experiment.Experiment }, error) {
		d := experiment.Draft{Name: in.Body.Name, Metric: in.Body.Metric, Regions: in.Body.Regions}
		for _, v := range in.Body.Variants {
			p := v.Patch
			d.Variants = append(d.Variants, experiment.Variant{Key: v.Key, Name: v.Name, Weight: v.Weight, Patch: experiment.Patch{
				Template: p.Template, Position: p.Position, TextOverrides: p.TextOverrides, TextTranslations: p.TextTranslations,
				RejectOnFirstLayer: p.RejectOnFirstLayer}})
		}
		e, err := h.m.ExperimentUseCases.Create(ctx, orgOf(ctx), in.ID, d)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *experiment.Experiment }{e}, nil
	})

	o = op("listExperiments", http.MethodGet, "/sites/{id}/experiments", "List experiments", "Experiments", 0)
	o.Description = "The site's experiments, the newest first. " + experimentsDoc
	huma.Register(api, o, func(ctx context.Context, in *SiteIDPath) (*struct{ Body []*experiment.Experiment }, error) {
		es, err := h.m.ExperimentUseCases.List(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body []*experiment.Experiment }{es}, nil
	})

	huma.Register(api, op("getExperiment", http.MethodGet, "/sites/{id}/experiments/{experimentId}", "Get an experiment", "Experiments", 0),
		func(ctx context.Context, in *ExperimentPath) (*struct{ Body *experiment.Experiment }, error) {
			e, err := h.m.ExperimentUseCases.Get(ctx, orgOf(ctx), in.ID, in.ExperimentID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *experiment.Experiment }{e}, nil
		})

	for _, t := range []struct {
		id, verb, summary, doc string
		start                  bool
	}{
		{"startExperiment", "start", "Start an experiment", "Starts a draft: the runtime shows its variants from the next page view. 409 when it is not a draft or another experiment of the site runs; 400 naming the compliance rule when a variant breaks, at a place the experiment runs, a rule the banner keeps there (for example no Reject all on the first layer under an opt-in rule in Europe: consent.region-europe-opt-in).", true},
		{"stopExperiment", "stop", "Stop an experiment", "Stops a running experiment: visitors see the banner again; the results stay. 409 when it is not running.", false},
	} {
		o := op(t.id, http.MethodPost, "/sites/{id}/experiments/{experimentId}/"+t.verb, t.summary, "Experiments", 0)
		o.Description = t.doc
		o.Errors = append(o.Errors, http.StatusConflict)
		start := t.start
		huma.Register(api, o, func(ctx context.Context, in *ExperimentPath) (*struct{ Body *experiment.Experiment }, error) {
			fn := h.m.ExperimentUseCases.Stop
			if start {
				fn = h.m.ExperimentUseCases.Start
			}
			e, err := fn(ctx, orgOf(ctx), in.ID, in.ExperimentID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *experiment.Experiment }{e}, nil
		})
	}

	o = op("promoteExperiment", http.MethodPost, "/sites/{id}/experiments/{experimentId}/promote", "Promote a variant into the banner", "Experiments", 0)
	o.Description = "Makes the variant the banner, as PATCH /sites/{id}/banner would (audited as a banner update), and ends the experiment " +
		"(status promoted, winner the variant). 409 for a draft or an experiment already promoted; 400 for an unknown variant or one that " +
		"changes the layer order (that is the banner's regionRules[].rejectOnFirstLayer, set per place)."
	o.Errors = append(o.Errors, http.StatusConflict)
	huma.Register(api, o, func(ctx context.Context, in *struct {
		ExperimentPath
		Body experimentPromoteBody
	}) (*struct{ Body *experiment.Experiment }, error) {
		e, err := h.m.ExperimentUseCases.Promote(ctx, orgOf(ctx), in.ID, in.ExperimentID, in.Body.Variant)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *experiment.Experiment }{e}, nil
	})

	o = op("getExperimentResults", http.MethodGet, "/sites/{id}/experiments/{experimentId}/results", "Get an experiment's results", "Experiments", 0)
	o.Description = "Per variant, the banners shown and the decisions from the analytics since the experiment started, the goal " +
		"metric's rate, each challenger's difference with the control with an always-valid confidence interval and p-value " +
		"(mixture sequential probability ratio test, Johari, Pekelis and Walsh 2017: evaluated at the end of every day, so a call " +
		"holds however often the results are read), the winner when one is called, and a sample-ratio-mismatch check (chi-square " +
		"test of the banners shown against the split; mismatch below p 0.001 means the results are not to be trusted)."
	huma.Register(api, o, func(ctx context.Context, in *ExperimentPath) (*struct{ Body *experiment.Results }, error) {
		r, err := h.m.ExperimentUseCases.Results(ctx, orgOf(ctx), in.ID, in.ExperimentID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *experiment.Results }{r}, nil
	})
}
