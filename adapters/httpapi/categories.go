package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// translations maps a language key to a translated text of at most 2000 characters.
type translations map[string]string

// Schema describes the map with its value limit, which struct tags cannot express.
func (translations) Schema(huma.Registry) *huma.Schema {
	maxLen := 2000
	s := &huma.Schema{
		Type: huma.TypeObject, Description: "Language key (1-35 chars) to text (at most 2000 chars).",
		AdditionalProperties: &huma.Schema{Type: huma.TypeString, MaxLength: &maxLen},
	}
	s.PrecomputeMessages()
	return s
}

type CategoryPath struct {
	SiteIDPath
	CatID string `path:"catId" doc:"Category ID (UUID)."`
}

func (h *handlers) registerCategories(api huma.API) {
	type catOutput struct{ Body *banner.Category }

	huma.Register(api, op("listCategories", http.MethodGet, "/sites/{id}/categories", "List categories", "Categories", 0),
		func(ctx context.Context, in *SiteIDPath) (*struct{ Body []*banner.Category }, error) {
			cats, err := h.m.Categories(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body []*banner.Category }{cats}, nil
		})

	type categoryCreateBody struct {
		Name                    string       `json:"name" minLength:"1" maxLength:"100"`
		Description             string       `json:"description,omitempty" maxLength:"500"`
		NameTranslations        translations `json:"nameTranslations,omitempty"`
		DescriptionTranslations translations `json:"descriptionTranslations,omitempty"`
	}
	o := op("createCategory", http.MethodPost, "/sites/{id}/categories", "Create a custom category", "Categories", http.StatusCreated)
	o.Description = "The slug is generated from the name (made unique with a numeric suffix). A custom category is neither required nor default, and goes after the existing ones."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body categoryCreateBody
	}) (*catOutput, error) {
		b := in.Body
		c, err := h.m.CreateCategory(ctx, orgOf(ctx), in.ID, banner.CategoryInput{
			Name: &b.Name, Description: &b.Description, NameTranslations: b.NameTranslations, DescriptionTranslations: b.DescriptionTranslations,
		})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &catOutput{c}, nil
	})

	type categoryPatchBody struct {
		Name                    *string      `json:"name,omitempty" nullable:"false" minLength:"1" maxLength:"100"`
		Description             *string      `json:"description,omitempty" nullable:"false" maxLength:"500"`
		SortOrder               *int         `json:"sortOrder,omitempty" nullable:"false" minimum:"0" maximum:"2147483647"`
		NameTranslations        translations `json:"nameTranslations,omitempty"`
		DescriptionTranslations translations `json:"descriptionTranslations,omitempty"`
	}
	huma.Register(api, op("updateCategory", http.MethodPatch, "/sites/{id}/categories/{catId}", "Update a category", "Categories", 0),
		func(ctx context.Context, in *struct {
			CategoryPath
			Body categoryPatchBody
		}) (*catOutput, error) {
			b := in.Body
			if b.SortOrder != nil {
				if err := core.CheckSortOrder("sortOrder", *b.SortOrder); err != nil {
					return nil, h.fail(ctx, err)
				}
			}
			c, err := h.m.UpdateCategory(ctx, orgOf(ctx), in.ID, in.CatID, banner.CategoryInput{
				Name: b.Name, Description: b.Description, SortOrder: b.SortOrder,
				NameTranslations: b.NameTranslations, DescriptionTranslations: b.DescriptionTranslations,
			})
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &catOutput{c}, nil
		})

	o = op("deleteCategory", http.MethodDelete, "/sites/{id}/categories/{catId}", "Delete a custom category", "Categories", 0)
	o.Description = "Default categories cannot be deleted (400), nor can a category that still has services (400)."
	huma.Register(api, o, func(ctx context.Context, in *CategoryPath) (*successBody, error) {
		if err := h.m.DeleteCategory(ctx, orgOf(ctx), in.ID, in.CatID); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})
}
