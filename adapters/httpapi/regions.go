package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// regionLaws is the law behind the region codes of banner.regionRules, from core's data file.
type regionLaws struct {
	Groups   []core.RegionGroup `json:"groups" doc:"The named groups a regional rule may name, with their members."`
	USStates []core.USStateLaw  `json:"usStates" doc:"The US states with a comprehensive consumer privacy law (the group US-STATE-LAWS): the law, its effective date, whether Global Privacy Control must be honoured, and its sources."`
}

func (h *handlers) registerRegions(api huma.API) {
	o := op("listRegionPresets", http.MethodGet, "/region-presets", "List the presets of regional rules", "Banner", 0)
	o.Description = "Sets of banner.regionRules a site owner picks with one click: PATCH a preset's regionRules into /sites/{id}/banner. " +
		"\"GDPR in Europe, US state laws, nothing elsewhere\" and \"Opt-in everywhere\"."
	huma.Register(api, o, func(context.Context, *struct{}) (*struct {
		Body struct {
			Presets []banner.RegionPreset `json:"presets"`
		}
	}, error) {
		out := &struct {
			Body struct {
				Presets []banner.RegionPreset `json:"presets"`
			}
		}{}
		out.Body.Presets = banner.RegionPresets()
		return out, nil
	})

	o = op("getRegionLaws", http.MethodGet, "/region-laws", "Get the law behind the region codes", "Banner", 0)
	o.Description = "The named groups of banner.regionRules (EU, EEA, US-STATE-LAWS) and, for each US state with a comprehensive " +
		"privacy law, its law, effective date, whether Global Privacy Control must be honoured and its sources: the data the " +
		"server decides and the compliance report checks with."
	huma.Register(api, o, func(context.Context, *struct{}) (*struct{ Body regionLaws }, error) {
		return &struct{ Body regionLaws }{regionLaws{Groups: core.RegionGroups(), USStates: core.USStateLaws()}}, nil
	})
}
