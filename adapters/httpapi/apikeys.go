package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// APIKeyOut is a key as listed: never its secret, only its first characters.
type APIKeyOut struct {
	ID             string     `json:"id" doc:"Key ID (UUID)."`
	OrganizationID string     `json:"organizationId"`
	Name           string     `json:"name" doc:"Label given at creation; a rotated key's successor keeps it."`
	Prefix         string     `json:"prefix" doc:"First characters of the key, to recognise it (\"cd_\" and 8 more)."`
	CreatedAt      time.Time  `json:"createdAt"`
	LastUsedAt     *time.Time `json:"lastUsedAt" doc:"Last request the key authenticated, to the minute; null when never used."`
	ExpiresAt      *time.Time `json:"expiresAt" doc:"When a rotated key stops working; null for a key that does not expire."`
	Role           string     `json:"role" enum:"owner,admin,editor,privacy,viewer" doc:"What the key may do (see the role matrix in the API description)."`
	SiteIDs        []string   `json:"siteIds" nullable:"true" doc:"The only sites the key may act on; null for every site of the organization."`
}

func apiKeyOut(k *identity.APIKey) APIKeyOut {
	return APIKeyOut{ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Prefix: k.Prefix,
		CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, Role: string(k.Role), SiteIDs: k.SiteIDs}
}

// APIKeyCreatedOut is a new key with its secret, shown this once.
type APIKeyCreatedOut struct {
	APIKeyOut
	Key string `json:"key" doc:"The key itself, shown only in this response: it is stored as a hash."`
}

// APIKeyRotatedOut is the successor of a rotated key and the rotated key itself.
type APIKeyRotatedOut struct {
	APIKeyCreatedOut
	Previous APIKeyOut `json:"previous" doc:"The rotated key, valid until its expiresAt."`
}

type apiKeyIDPath struct {
	ID string `path:"id" doc:"API key ID (UUID)."`
}

func (h *handlers) registerAPIKeys(api huma.API) {
	huma.Register(api, op("listApiKeys", http.MethodGet, "/api-keys", "List API keys", "API keys", 0),
		func(ctx context.Context, _ *struct{}) (*struct{ Body []APIKeyOut }, error) {
			keys, err := h.m.APIKeys(ctx, orgOf(ctx))
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			out := &struct{ Body []APIKeyOut }{Body: make([]APIKeyOut, len(keys))}
			for i, k := range keys {
				out.Body[i] = apiKeyOut(k)
			}
			return out, nil
		})

	type apiKeyCreateBody struct {
		Name    string   `json:"name,omitempty" maxLength:"100" doc:"Label of the key."`
		Role    string   `json:"role,omitempty" enum:"owner,admin,editor,privacy,viewer" doc:"What the key may do (default admin)."`
		SiteIDs []string `json:"siteIds,omitempty" minItems:"1" maxItems:"100" nullable:"false" format:"uuid" doc:"Limit the key to these sites of the organization (default: every site)."`
	}
	o := op("createApiKey", http.MethodPost, "/api-keys", "Create an API key", "API keys", http.StatusCreated)
	o.Description = "Creates a key for the caller's organization, with a role (default `admin`) and optionally limited to some sites. The key is in this response only."
	huma.Register(api, o, func(ctx context.Context, in *struct{ Body *apiKeyCreateBody }) (*struct{ Body APIKeyCreatedOut }, error) {
		var kin identity.APIKeyInput
		if in.Body != nil {
			kin = identity.APIKeyInput{Name: in.Body.Name, Role: core.Role(in.Body.Role), SiteIDs: in.Body.SiteIDs}
		}
		k, plain, err := h.m.IssueAPIKey(ctx, orgOf(ctx), kin)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body APIKeyCreatedOut }{APIKeyCreatedOut{apiKeyOut(k), plain}}, nil
	})

	o = op("revokeApiKey", http.MethodDelete, "/api-keys/{id}", "Revoke an API key", "API keys", 0)
	o.Description = "Deletes the key: the next request that uses it is refused (401)."
	huma.Register(api, o, func(ctx context.Context, in *apiKeyIDPath) (*successBody, error) {
		if err := h.m.RevokeAPIKey(ctx, orgOf(ctx), in.ID); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})

	type apiKeyRotateBody struct {
		GraceSeconds *int `json:"graceSeconds,omitempty" nullable:"false" minimum:"0" maximum:"2592000" doc:"How long the rotated key keeps working (default 86400, one day; 0 ends it at once)."`
	}
	o = op("rotateApiKey", http.MethodPost, "/api-keys/{id}/rotate", "Rotate an API key", "API keys", http.StatusCreated)
	o.Description = "Creates a successor with the same name and lets the rotated key work for a grace period, so that clients can switch over without downtime. The successor's key is in this response only."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		ID   string `path:"id" doc:"API key ID (UUID)."`
		Body *apiKeyRotateBody
	}) (*struct{ Body APIKeyRotatedOut }, error) {
		var grace *time.Duration
		if in.Body != nil && in.Body.GraceSeconds != nil {
			g := time.Duration(*in.Body.GraceSeconds) * time.Second
			grace = &g
		}
		k, plain, prev, err := h.m.RotateAPIKey(ctx, orgOf(ctx), in.ID, grace)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body APIKeyRotatedOut }{APIKeyRotatedOut{APIKeyCreatedOut{apiKeyOut(k), plain}, apiKeyOut(prev)}}, nil
	})
}
