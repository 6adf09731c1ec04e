package core

import (
	"context"
	"crypto/rand"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// DigestRecipient is an address that receives a site's email digest; Token is its unsubscribe
// link's secret ("siteID.random"), never shown by the API.
type DigestRecipient struct {
	Email string `json:"email"`
	Token string `json:"token"`
}

func NewProjectKey() string { return "pk_" + strings.ToLower(rand.Text()) }

// SiteLister walks every site of every organization, a page at a time, for deployment-wide
// work such as periodic rescans. It is separate from Store because no request-scoped use case
// may see across organizations.
type SiteLister interface {
	// AllSites lists up to limit sites whose ID sorts after afterID, ordered by ID; an empty
	// afterID starts at the beginning. It returns internal errors only.
	AllSites(ctx context.Context, afterID string, limit int) ([]*Site, error)
}

// Site is a website on which the banner is deployed.
type Site struct {
	ID             string `json:"id"`
	OrganizationID string `json:"organizationId"`
	Name           string `json:"name"`
	URL            string `json:"url"`
	ProjectKey     string `json:"projectKey"`
	// ConsentRetentionDays, when set, removes consent records older than that many days
	// (whole chain batches at a time); nil keeps them forever.
	ConsentRetentionDays *int `json:"consentRetentionDays"`
	// ScanSchedule is how often the site is scanned: default (the deployment's rescan
	// interval), off, daily, weekly or monthly; VerifySchedule how often a verification scan
	// checks that its banner is obeyed (off by default). Runs spread over the period.
	ScanSchedule   string `json:"scanSchedule" enum:"default,off,daily,weekly,monthly"`
	VerifySchedule string `json:"verifySchedule" enum:"off,daily,weekly,monthly"`
	// AutoConfigure adds the library services a completed scan newly found to their
	// categories, with their blocking rules (off by default).
	AutoConfigure bool `json:"autoConfigure"`
	// DigestRecipients get the site's email digest of changes and failures.
	DigestRecipients []DigestRecipient `json:"-"`
	CreatedAt        time.Time         `json:"createdAt"`
	UpdatedAt        time.Time         `json:"updatedAt"`
}

// siteAuditView is what the audit log records of a site: its fields and its digest's
// recipients' addresses (not their unsubscribe tokens, which are credentials).
type siteAuditView struct {
	*Site
	DigestEmails []string `json:"digestEmails"`
}

func SiteAudit(s *Site) siteAuditView {
	v := siteAuditView{Site: s, DigestEmails: []string{}}
	for _, r := range s.DigestRecipients {
		v.DigestEmails = append(v.DigestEmails, r.Email)
	}
	return v
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
	// UpdateSite stores the site's name, URL, consent retention and updatedAt; not_found when it does not exist.
	UpdateSite(ctx context.Context, s *Site) error
	// DeleteSite removes the site and everything that belongs to it; not_found when it does
	// not exist.
	DeleteSite(ctx context.Context, id string) error
}

// Limits of sites, stated by the API's OpenAPI document (pinned by its schemalimits test).
const (
	MaxSiteName = 200
	MaxURL      = 500
)

func ValidateHTTPURL(field, s string) error {
	if err := CheckText(field, s); err != nil {
		return err
	}
	if utf8.RuneCountInString(s) > MaxURL {
		return FieldErrorf(field, "must be at most %d characters", MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return FieldErrorf(field, "must be an absolute http(s) URL")
	}
	return nil
}
