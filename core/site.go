package core

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Organization is an account that owns sites and API keys.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// APIKey is a bearer credential of an organization. Only a hash of the key is stored.
type APIKey struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Hash           string    `json:"-"`
	CreatedAt      time.Time `json:"createdAt"`
}

// Site is a website on which the banner is deployed.
type Site struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	URL            string    `json:"url"`
	ProjectKey     string    `json:"projectKey"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// OrgStore persists organizations and API keys.
type OrgStore interface {
	// CreateOrganization stores a new organization.
	CreateOrganization(ctx context.Context, o *Organization) error
	// CountOrganizations counts all organizations.
	CountOrganizations(ctx context.Context) (int, error)
	// CreateAPIKey stores a new key; conflict when its hash exists.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByHash finds a key by its hash; not_found when there is none.
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// Organization finds an organization; not_found when there is none.
	Organization(ctx context.Context, id string) (*Organization, error)
}

// SiteStore persists sites.
type SiteStore interface {
	// CreateSite stores a new site; conflict when its project key exists.
	CreateSite(ctx context.Context, s *Site) error
	// Site finds a site of the organization; not_found when it does not exist or belongs to
	// another organization.
	Site(ctx context.Context, orgID, id string) (*Site, error)
	// SiteByProjectKey finds a site by its public key; not_found when there is none.
	SiteByProjectKey(ctx context.Context, projectKey string) (*Site, error)
	// Sites lists the organization's sites, oldest first.
	Sites(ctx context.Context, orgID string) ([]*Site, error)
	// UpdateSite stores the site's name, URL and updatedAt; not_found when it does not exist.
	UpdateSite(ctx context.Context, s *Site) error
	// DeleteSite removes the site and everything that belongs to it; not_found when it does
	// not exist.
	DeleteSite(ctx context.Context, id string) error
}

// Limits of sites (product.md section 2).
const (
	MaxSiteName = 200
	MaxURL      = 500
)

// SiteInput creates or changes a site. Nil fields are left unchanged on update.
type SiteInput struct {
	Name *string
	URL  *string
}

func (in SiteInput) validate(create bool) error {
	if create && (in.Name == nil || in.URL == nil) {
		return Errorf(CodeInvalid, "name and url are required")
	}
	if in.Name != nil {
		if n := utf8.RuneCountInString(strings.TrimSpace(*in.Name)); n < 1 || n > MaxSiteName {
			return Errorf(CodeInvalid, "name: must be 1 to %d characters", MaxSiteName)
		}
	}
	if in.URL != nil {
		if err := validateHTTPURL("url", *in.URL); err != nil {
			return err
		}
	}
	return nil
}

func validateHTTPURL(field, s string) error {
	if utf8.RuneCountInString(s) > MaxURL {
		return Errorf(CodeInvalid, "%s: must be at most %d characters", field, MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(CodeInvalid, "%s: must be an absolute http(s) URL", field)
	}
	return nil
}
