package console

import (
	"context"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// The use cases the console calls, one small interface per concept, declared here where
// they are consumed; core's services satisfy them.
type (
	// AuthUseCases authenticate the API key a person signs in with.
	AuthUseCases interface {
		AuthenticateKey(ctx context.Context, key string) (*core.Actor, error)
	}
	// UserUseCases sign members in and manage members and invitations.
	UserUseCases interface {
		SignIn(ctx context.Context, email, password string) (*core.User, []*core.Membership, error)
		UserActor(ctx context.Context, userID, orgID string) (*core.Actor, error)
		Memberships(ctx context.Context, userID string) ([]*core.Membership, error)
		Members(ctx context.Context, orgID string) ([]*core.Membership, error)
		Invite(ctx context.Context, orgID, email string, role core.Role) (string, error)
		Invitation(ctx context.Context, secret string) (*core.OneTimeToken, error)
		AcceptInvitation(ctx context.Context, secret, email, name, password string) (*core.User, string, error)
		ResetPassword(ctx context.Context, secret, password string) (*core.User, error)
		ChangeRole(ctx context.Context, orgID, userID string, role core.Role) error
		RemoveMember(ctx context.Context, orgID, userID string) error
		SignInExternal(ctx context.Context, p core.SSOPolicy, id core.ExternalIdentity) (*core.User, error)
	}
	// SiteUseCases manage sites.
	SiteUseCases interface {
		CreateSite(ctx context.Context, orgID string, in core.SiteInput) (*core.Site, error)
		Sites(ctx context.Context, orgID string) ([]*core.Site, error)
		Site(ctx context.Context, orgID, id string) (*core.Site, error)
		UpdateSite(ctx context.Context, orgID, id string, in core.SiteInput) (*core.Site, error)
		DeleteSite(ctx context.Context, orgID, id string) error
	}
	// BannerUseCases manage a site's banner and script blocking.
	BannerUseCases interface {
		Banner(ctx context.Context, orgID, siteID string) (*core.Banner, error)
		PatchBanner(ctx context.Context, orgID, siteID string, p core.BannerPatch) (*core.Banner, error)
		SetScriptBlocking(ctx context.Context, orgID, siteID string, enabled bool) error
	}
	// CategoryUseCases manage a site's categories.
	CategoryUseCases interface {
		Categories(ctx context.Context, orgID, siteID string) ([]*core.Category, error)
		CreateCategory(ctx context.Context, orgID, siteID string, in core.CategoryInput) (*core.Category, error)
		UpdateCategory(ctx context.Context, orgID, siteID, id string, in core.CategoryInput) (*core.Category, error)
		DeleteCategory(ctx context.Context, orgID, siteID, id string) error
	}
	// ServiceUseCases manage the services configured on a site.
	ServiceUseCases interface {
		Services(ctx context.Context, orgID, siteID string) ([]*core.Service, error)
		CreateService(ctx context.Context, orgID, siteID string, in core.ServiceInput) (*core.Service, error)
		UpdateService(ctx context.Context, orgID, siteID, id string, in core.ServiceInput) (*core.Service, error)
		ImportService(ctx context.Context, orgID, siteID, slug, categorySlug string) (*core.ImportResult, error)
		DeleteService(ctx context.Context, orgID, siteID, id string) error
	}
	// LibraryUseCases read the service library.
	LibraryUseCases interface {
		LibraryServices(q string) []*library.Service
		LibraryService(slug string) (*library.Service, error)
	}
	// ScanUseCases trigger scans, read their results and configure what they found.
	ScanUseCases interface {
		TriggerScan(ctx context.Context, orgID, siteID string, in core.ScanInput) (*core.Scan, error)
		Scans(ctx context.Context, orgID, siteID string) ([]*core.Scan, error)
		Scan(ctx context.Context, orgID, siteID, scanID string) (*core.Scan, error)
		ConfigureScan(ctx context.Context, orgID, siteID, scanID string) (*core.ImportResult, error)
		Trackers(ctx context.Context, orgID, siteID string) (*core.Trackers, error)
	}
	// ProofUseCases verify, count and erase consent records.
	ProofUseCases interface {
		VerifyConsentChain(ctx context.Context, orgID, siteID string) (*core.ChainReport, error)
		ConsentStats(ctx context.Context, orgID string, q core.ConsentStatsQuery) (*core.ConsentStats, error)
		EraseVisitor(ctx context.Context, orgID, siteID, visitorID string) (int, error)
		ConsentSnapshot(ctx context.Context, orgID, siteID, hash string) (*core.ConsentSnapshot, error)
	}
	// KeyUseCases manage the organization's API keys.
	KeyUseCases interface {
		APIKeys(ctx context.Context, orgID string) ([]*core.APIKey, error)
		IssueAPIKey(ctx context.Context, orgID string, in core.APIKeyInput) (*core.APIKey, string, error)
		RotateAPIKey(ctx context.Context, orgID, id string, grace *time.Duration) (*core.APIKey, string, *core.APIKey, error)
		RevokeAPIKey(ctx context.Context, orgID, id string) error
	}
	// PreviewUseCases give the banner preview the site's public configuration, which the
	// draft is applied to.
	PreviewUseCases interface {
		PreviewConfig(ctx context.Context, projectKey, country string) (*core.PublicConfig, error)
	}
	// ComplianceUseCases report whether a site's banner is set up and obeyed as the rules ask.
	ComplianceUseCases interface {
		Report(ctx context.Context, orgID, siteID string) (*core.ComplianceReport, error)
	}
	// AuditUseCases read and verify the audit log.
	AuditUseCases interface {
		AuditEntries(ctx context.Context, orgID string, q core.AuditQuery, cursor string) (*core.AuditPage, error)
		VerifyAuditLog(ctx context.Context, orgID string) (*core.AuditReport, error)
	}
	// ConsentUseCases read consent records.
	ConsentUseCases interface {
		ConsentRecords(ctx context.Context, orgID string, q core.ConsentQuery) ([]*core.ConsentRecord, int, error)
		ExportConsentRecords(ctx context.Context, orgID string, q core.ConsentQuery, fn func(*core.ConsentRecord) error) error
	}
)

// UseCases are the use cases behind the console's pages.
type UseCases struct {
	AuthUseCases
	SessionUseCases
	UserUseCases
	SiteUseCases
	BannerUseCases
	CategoryUseCases
	ServiceUseCases
	LibraryUseCases
	ScanUseCases
	ConsentUseCases
	PreviewUseCases
	// ProofUseCases is optional: without it the records page has no statistics,
	// verification or erasure.
	ProofUseCases
	// KeyUseCases is optional: without it the console has no API keys page.
	KeyUseCases
	// ComplianceUseCases is optional: without it the site overview has no compliance summary.
	ComplianceUseCases
	// AuditUseCases is optional: without it the console has no audit log page.
	AuditUseCases
}

// FromCore picks the console's use cases out of core's.
func FromCore(uc *core.UseCases) UseCases {
	return UseCases{
		AuthUseCases: uc.Orgs, SessionUseCases: uc.Sessions, UserUseCases: uc.Users, SiteUseCases: uc.Sites, BannerUseCases: uc.Banners,
		CategoryUseCases: uc.Categories, ServiceUseCases: uc.Services, LibraryUseCases: uc.Library,
		ScanUseCases: uc.Scans, ConsentUseCases: uc.Consents, PreviewUseCases: previewConfig{uc.Consents}, KeyUseCases: uc.Orgs, ProofUseCases: uc.Consents,
		ComplianceUseCases: uc.Compliance, AuditUseCases: uc.AuditLog,
	}
}

// previewConfig is the public configuration as the runtime gets it, through a plain call, so
// that the console does not depend on the exact signature of Consents.PublicConfig.
type previewConfig struct{ c *core.Consents }

func (p previewConfig) PreviewConfig(ctx context.Context, projectKey, country string) (*core.PublicConfig, error) {
	return p.c.PublicConfig(ctx, projectKey, country)
}
