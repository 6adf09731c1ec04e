package httpapi

import (
	"context"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// The use cases the handlers call, one small interface per concept, declared here where they
// are consumed; core's services satisfy them (app wires core.UseCases in). The console
// consumes the same ones for what it shares with the API (sites, banners, scans, records...)
// and declares only its own.
type (
	// AuthUseCases authenticate API keys: the caller's organization, role and sites.
	AuthUseCases interface {
		AuthenticateKey(ctx context.Context, key string) (*core.Actor, error)
	}
	// APIKeyUseCases manage the caller's organization's API keys.
	APIKeyUseCases interface {
		APIKeys(ctx context.Context, orgID string) ([]*core.APIKey, error)
		IssueAPIKey(ctx context.Context, orgID string, in core.APIKeyInput) (*core.APIKey, string, error)
		RevokeAPIKey(ctx context.Context, orgID, id string) error
		RotateAPIKey(ctx context.Context, orgID, id string, grace *time.Duration) (*core.APIKey, string, *core.APIKey, error)
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
	// ScanUseCases trigger scans and read their results.
	ScanUseCases interface {
		TriggerScan(ctx context.Context, orgID, siteID string, in core.ScanInput) (*core.Scan, error)
		Scans(ctx context.Context, orgID, siteID string) ([]*core.Scan, error)
		Scan(ctx context.Context, orgID, siteID, scanID string) (*core.Scan, error)
		ConfigureScan(ctx context.Context, orgID, siteID, scanID string) (*core.ImportResult, error)
		Trackers(ctx context.Context, orgID, siteID string) (*core.Trackers, error)
	}
	// PublicBannerUseCases serve the public endpoints a site's banner calls.
	PublicBannerUseCases interface {
		PublicConfig(ctx context.Context, projectKey string, loc core.Location, langs ...string) (*core.PublicConfig, error)
		Declaration(ctx context.Context, projectKey string, langs ...string) (*core.Declaration, error)
		TCFConfig(ctx context.Context, projectKey, lang string) (*core.TCFPublicConfig, error)
		RecordConsent(ctx context.Context, projectKey string, in core.ConsentInput) (*core.ConsentRecord, error)
	}
	// ConsentLogUseCases list, export, prove, count and erase consent records.
	ConsentLogUseCases interface {
		ConsentRecords(ctx context.Context, orgID string, q core.ConsentQuery) ([]*core.ConsentRecord, int, error)
		ExportConsentRecords(ctx context.Context, orgID string, q core.ConsentQuery, fn func(*core.ConsentRecord) error) error
		ConsentSnapshot(ctx context.Context, orgID, siteID, hash string) (*core.ConsentSnapshot, error)
		VerifyConsentChain(ctx context.Context, orgID, siteID string) (*core.ChainReport, error)
		ConsentStats(ctx context.Context, orgID string, q core.ConsentStatsQuery) (*core.ConsentStats, error)
		EraseVisitor(ctx context.Context, orgID, siteID, visitorID string) (int, error)
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
	// SSOUseCases manage the organization's own single sign-on provider (owners).
	SSOUseCases interface {
		SSOConfig(ctx context.Context, orgID string) (*core.SSOConfig, error)
		PutSSOConfig(ctx context.Context, orgID string, in core.SSOInput) (*core.SSOConfig, error)
		DeleteSSOConfig(ctx context.Context, orgID string) error
	}
	// HealthUseCases report readiness.
	HealthUseCases interface {
		Ready(ctx context.Context) error
	}
)

// UseCases are the use cases behind the handlers.
type UseCases struct {
	AuthUseCases
	APIKeyUseCases
	SiteUseCases
	BannerUseCases
	CategoryUseCases
	ServiceUseCases
	LibraryUseCases
	ScanUseCases
	PublicBannerUseCases
	ConsentLogUseCases
	ComplianceUseCases
	WebhookUseCases
	DigestUseCases
	HealthUseCases
	AuditUseCases
	SSOUseCases
}

// FromCore picks the handlers' use cases out of core's.
func FromCore(uc *core.UseCases) UseCases {
	return UseCases{
		AuthUseCases: uc.Orgs, APIKeyUseCases: uc.Orgs, SiteUseCases: uc.Sites, BannerUseCases: uc.Banners,
		CategoryUseCases: uc.Categories, ServiceUseCases: uc.Services, LibraryUseCases: uc.Library,
		ScanUseCases: uc.Scans, PublicBannerUseCases: uc.PublicBanner, ConsentLogUseCases: uc.ConsentLog, ComplianceUseCases: uc.Compliance, WebhookUseCases: uc.Webhooks, DigestUseCases: uc.Digests, HealthUseCases: uc.Health,
		AuditUseCases: uc.AuditLog, SSOUseCases: uc.Users,
	}
}
