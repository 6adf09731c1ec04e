package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/site"
)

// SiteOut is a site as the API returns it; accountId repeats organizationId for clients of
// the prose reference.
type SiteOut struct {
	*core.Site
	AccountID    string   `json:"accountId" doc:"Same value as organizationId."`
	DigestEmails []string `json:"digestEmails" doc:"Addresses that get the site's email digest of changes and failures (when the deployment has SMTP)."`
}

func siteOut(s *core.Site) *SiteOut {
	emails := []string{}
	for _, r := range s.DigestRecipients {
		emails = append(emails, r.Email)
	}
	return &SiteOut{Site: s, AccountID: s.OrganizationID, DigestEmails: emails}
}

type SiteIDPath struct {
	ID string `path:"id" doc:"Site ID (UUID)."`
}

type successBody struct {
	Body struct {
		Success bool `json:"success"`
	}
}

func success() *successBody {
	out := &successBody{}
	out.Body.Success = true
	return out
}

func (h *handlers) registerSites(api huma.API) {
	type siteOutput struct{ Body *SiteOut }

	huma.Register(api, op("listSites", http.MethodGet, "/sites", "List sites", "Sites", 0),
		func(ctx context.Context, _ *struct{}) (*struct{ Body []*SiteOut }, error) {
			sites, err := h.m.Sites(ctx, orgOf(ctx))
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			out := &struct{ Body []*SiteOut }{Body: make([]*SiteOut, len(sites))}
			for i, s := range sites {
				out.Body[i] = siteOut(s)
			}
			return out, nil
		})

	huma.Register(api, op("getSite", http.MethodGet, "/sites/{id}", "Get a site", "Sites", 0),
		func(ctx context.Context, in *SiteIDPath) (*siteOutput, error) {
			s, err := h.m.Site(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &siteOutput{siteOut(s)}, nil
		})

	type siteCreateBody struct {
		Name string `json:"name" minLength:"1" maxLength:"200" doc:"Display name."`
		URL  string `json:"url" format:"uri" maxLength:"500" doc:"Homepage, absolute http(s) URL; the default scan target."`
	}
	o := op("createSite", http.MethodPost, "/sites", "Create a site", "Sites", http.StatusCreated)
	o.Description = "Creates a site with its banner configuration (defaults) and the three default categories, in one transaction."
	huma.Register(api, o, func(ctx context.Context, in *struct{ Body siteCreateBody }) (*siteOutput, error) {
		s, err := h.m.CreateSite(ctx, orgOf(ctx), site.SiteInput{Name: &in.Body.Name, URL: &in.Body.URL})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &siteOutput{siteOut(s)}, nil
	})

	type sitePatchBody struct {
		Name *string `json:"name,omitempty" nullable:"false" minLength:"1" maxLength:"200"`
		URL  *string `json:"url,omitempty" nullable:"false" format:"uri" maxLength:"500"`
		// ConsentRetentionDays: see docs/consent-records.md, "Retention".
		ConsentRetentionDays nullable[int] `json:"consentRetentionDays,omitempty" doc:"Remove consent records older than this many days (1 to 3650), whole chain batches at a time, in a periodic job; null keeps them forever (the default). Setting it needs the retention permission (owner, admin, privacy; docs/teams.md): a patch of this field alone needs only that, one that also changes another field needs configure too, so an editor key gets 403 forbidden."`
		// Schedules: see docs/scan-jobs.md, "Schedules".
		ScanSchedule   *string  `json:"scanSchedule,omitempty" nullable:"false" enum:"default,off,daily,weekly,monthly" doc:"How often the site is scanned: default follows the deployment's rescan interval. Runs spread over the period."`
		VerifySchedule *string  `json:"verifySchedule,omitempty" nullable:"false" enum:"off,daily,weekly,monthly" doc:"How often a verification scan checks that the banner is obeyed."`
		AutoConfigure  *bool    `json:"autoConfigure,omitempty" nullable:"false" doc:"Add the library services a completed scan newly finds to their categories, with blocking rules (off by default); the scan's autoConfigured lists them."`
		DigestEmails   []string `json:"digestEmails,omitempty" maxItems:"10" format:"email" doc:"Replaces the addresses that get the site's email digest (each email carries its own unsubscribe link)."`
	}
	huma.Register(api, op("updateSite", http.MethodPatch, "/sites/{id}", "Update a site", "Sites", 0),
		func(ctx context.Context, in *struct {
			SiteIDPath
			Body sitePatchBody
		}) (*siteOutput, error) {
			s, err := h.m.UpdateSite(ctx, orgOf(ctx), in.ID, site.SiteInput{Name: in.Body.Name, URL: in.Body.URL,
				ConsentRetentionDays: in.Body.ConsentRetentionDays.core(), ScanSchedule: in.Body.ScanSchedule,
				VerifySchedule: in.Body.VerifySchedule, AutoConfigure: in.Body.AutoConfigure, DigestEmails: in.Body.DigestEmails})
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &siteOutput{siteOut(s)}, nil
		})

	o = op("deleteSite", http.MethodDelete, "/sites/{id}", "Delete a site", "Sites", 0)
	o.Description = "Removes the site and everything that belongs to it: banner, categories, services, cookies, scans and consent records."
	huma.Register(api, o, func(ctx context.Context, in *SiteIDPath) (*successBody, error) {
		if err := h.m.DeleteSite(ctx, orgOf(ctx), in.ID); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})
}
