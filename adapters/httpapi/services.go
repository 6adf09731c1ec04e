package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/library"
)

// ServiceRef is the short form of a service in create, import and configure responses.
type ServiceRef struct {
	ID         string `json:"id"`
	Slug       string `json:"slug"`
	Label      string `json:"label"`
	CategoryID string `json:"categoryId"`
}

func refOf(s *banner.Service) ServiceRef {
	return ServiceRef{ID: s.ID, Slug: s.Slug, Label: s.Label, CategoryID: s.CategoryID}
}

type cookieIn struct {
	Name                    string       `json:"name" minLength:"1" maxLength:"200"`
	Duration                string       `json:"duration" minLength:"1" maxLength:"100"`
	Description             string       `json:"description,omitempty" maxLength:"500"`
	DescriptionTranslations translations `json:"descriptionTranslations,omitempty"`
}

type serviceCreateBody struct {
	Slug                    string       `json:"slug" minLength:"1" maxLength:"100" doc:"Lower-case letters, digits and hyphens."`
	Label                   string       `json:"label" minLength:"1" maxLength:"200"`
	CategorySlug            string       `json:"categorySlug" minLength:"1" maxLength:"50" doc:"Slug of an existing category of the site."`
	Description             string       `json:"description,omitempty" maxLength:"1000"`
	LabelTranslations       translations `json:"labelTranslations,omitempty"`
	DescriptionTranslations translations `json:"descriptionTranslations,omitempty"`
	ServiceURL              *string      `json:"serviceUrl,omitempty" nullable:"false" format:"uri" maxLength:"500"`
	Cookies                 []cookieIn   `json:"cookies,omitempty" maxItems:"500" nullable:"false"`
}

// TransformSchema takes the slug pattern from core, its one source, rather than from a tag.
func (serviceCreateBody) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if slug := s.Properties["slug"]; slug != nil {
		slug.Pattern = core.SlugPattern
		slug.PrecomputeMessages()
	}
	return s
}

func (h *handlers) registerServices(api huma.API) {
	huma.Register(api, op("listServices", http.MethodGet, "/sites/{id}/services", "List services with their cookies", "Services", 0),
		func(ctx context.Context, in *SiteIDPath) (*struct{ Body []*banner.Service }, error) {
			svcs, err := h.m.Services(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body []*banner.Service }{svcs}, nil
		})

	type serviceCreatedBody struct {
		Service        ServiceRef `json:"service"`
		CookiesCreated int        `json:"cookiesCreated"`
	}
	o := op("createService", http.MethodPost, "/sites/{id}/services", "Create a custom service", "Services", http.StatusCreated)
	o.Errors = append(o.Errors, http.StatusConflict)
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body serviceCreateBody
	}) (*struct{ Body serviceCreatedBody }, error) {
		b := in.Body
		si := banner.ServiceInput{
			Slug: b.Slug, Label: b.Label, CategorySlug: b.CategorySlug, Description: b.Description,
			LabelTranslations: b.LabelTranslations, DescriptionTranslations: b.DescriptionTranslations, ServiceURL: b.ServiceURL,
		}
		for _, c := range b.Cookies {
			si.Cookies = append(si.Cookies, banner.CookieInput{Name: c.Name, Duration: c.Duration, Description: c.Description, DescriptionTranslations: c.DescriptionTranslations})
		}
		s, err := h.m.CreateService(ctx, orgOf(ctx), in.ID, si)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body serviceCreatedBody }{serviceCreatedBody{Service: refOf(s), CookiesCreated: len(s.Cookies)}}, nil
	})

	type serviceImportBody struct {
		Slug         string `json:"slug" minLength:"1" maxLength:"100" doc:"Slug of the library service."`
		CategorySlug string `json:"categorySlug,omitempty" minLength:"1" maxLength:"50" doc:"Site category to put it in; the library's category by default."`
	}
	type serviceImportedBody struct {
		Service            ServiceRef `json:"service"`
		CookiesCreated     int        `json:"cookiesCreated"`
		BlockingRulesAdded int        `json:"blockingRulesAdded"`
	}
	o = op("importService", http.MethodPost, "/sites/{id}/services/import", "Import a service from the library", "Services", http.StatusCreated)
	o.Description = "Creates the service, all its documented cookies, and the blocking rule that holds its scripts back until consent. blockingRulesAdded is 0 when the service is in a required category, is covered by a built-in rule, or has no known patterns."
	o.Errors = append(o.Errors, http.StatusConflict)
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body serviceImportBody
	}) (*struct{ Body serviceImportedBody }, error) {
		res, err := h.m.ImportService(ctx, orgOf(ctx), in.ID, in.Body.Slug, in.Body.CategorySlug)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		s := res.Services[0]
		return &struct{ Body serviceImportedBody }{serviceImportedBody{Service: refOf(s), CookiesCreated: len(s.Cookies), BlockingRulesAdded: res.BlockingRulesAdded}}, nil
	})

	huma.Register(api, op("deleteService", http.MethodDelete, "/sites/{id}/services/{serviceId}", "Delete a service and its cookies", "Services", 0),
		func(ctx context.Context, in *struct {
			SiteIDPath
			ServiceID string `path:"serviceId"`
		}) (*successBody, error) {
			if err := h.m.DeleteService(ctx, orgOf(ctx), in.ID, in.ServiceID); err != nil {
				return nil, h.fail(ctx, err)
			}
			return success(), nil
		})
}

// LibrarySummary is a library service in search results.
type LibrarySummary struct {
	Slug        string  `json:"slug"`
	Label       string  `json:"label"`
	Description string  `json:"description"`
	Category    string  `json:"category" enum:"essential,statistics,marketing"`
	Logo        *string `json:"logo"`
	CookieCount int     `json:"cookieCount"`
}

// LibraryCookie is a documented cookie of a library service.
type LibraryCookie struct {
	Name        string `json:"name"`
	Duration    string `json:"duration"`
	Description string `json:"description"`
}

// LibraryDetail is one library service.
type LibraryDetail struct {
	Slug        string          `json:"slug"`
	Label       string          `json:"label"`
	Description string          `json:"description"`
	Category    string          `json:"category" enum:"essential,statistics,marketing"`
	Logo        *string         `json:"logo"`
	ServiceURL  *string         `json:"serviceUrl"`
	Cookies     []LibraryCookie `json:"cookies"`
}

func (h *handlers) registerLibrary(api huma.API) {
	o := op("searchLibrary", http.MethodGet, "/library/services", "Search the service library", "Library", 0)
	o.Description = "Case-insensitive search over slug, label, vendor, description and cookie names, ranked: exact slug, then label prefix, then other hits. Without q, the whole library."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		Q string `query:"q" maxLength:"200" doc:"Search text."`
	}) (*struct {
		Body struct {
			Services []LibrarySummary `json:"services"`
		}
	}, error) {
		out := &struct {
			Body struct {
				Services []LibrarySummary `json:"services"`
			}
		}{}
		out.Body.Services = []LibrarySummary{}
		for _, s := range h.m.LibraryServices(in.Q) {
			out.Body.Services = append(out.Body.Services, LibrarySummary{
				Slug: s.Slug, Label: s.Label, Description: s.Description, Category: s.Category, Logo: s.Logo, CookieCount: len(s.Cookies),
			})
		}
		return out, nil
	})

	huma.Register(api, op("getLibraryService", http.MethodGet, "/library/services/{slug}", "Get a library service", "Library", 0),
		func(ctx context.Context, in *struct {
			Slug string `path:"slug"`
		}) (*struct{ Body LibraryDetail }, error) {
			s, err := h.m.LibraryService(in.Slug)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body LibraryDetail }{libraryDetail(s)}, nil
		})
}

func libraryDetail(s *library.Service) LibraryDetail {
	d := LibraryDetail{Slug: s.Slug, Label: s.Label, Description: s.Description, Category: s.Category, Logo: s.Logo, Cookies: []LibraryCookie{}}
	if s.ServiceURL != "" {
		u := s.ServiceURL
		d.ServiceURL = &u
	}
	for _, c := range s.Cookies {
		d.Cookies = append(d.Cookies, LibraryCookie{Name: c.Name, Duration: c.Duration, Description: c.Description})
	}
	return d
}
