package httpapi

import (
	"context"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/edge"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/library"
)

// The use cases the handlers call, one small interface per concept, declared here where they
// are consumed; core's services satisfy them (app wires core.UseCases in). The console
// declares its own (adapters/console): the two adapters are siblings, sharing only the leaves
// under adapters/internal.
type (
	// AuthUseCases authenticate API keys: the caller's organization, role and sites.
	AuthUseCases interface {
		AuthenticateKey(ctx context.Context, key string) (*core.Actor, error)
	}
	// APIKeyUseCases manage the caller's organization's API keys.
	APIKeyUseCases interface {
		APIKeys(ctx context.Context, orgID string) ([]*identity.APIKey, error)
		IssueAPIKey(ctx context.Context, orgID string, in identity.APIKeyInput) (*identity.APIKey, string, error)
		RevokeAPIKey(ctx context.Context, orgID, id string) error
		RotateAPIKey(ctx context.Context, orgID, id string, grace *time.Duration) (*identity.APIKey, string, *identity.APIKey, error)
	}
	// SiteUseCases manage sites.
	SiteUseCases interface {
		CreateSite(ctx context.Context, orgID string, in site.SiteInput) (*core.Site, error)
		Sites(ctx context.Context, orgID string) ([]*core.Site, error)
		Site(ctx context.Context, orgID, id string) (*core.Site, error)
		UpdateSite(ctx context.Context, orgID, id string, in site.SiteInput) (*core.Site, error)
		DeleteSite(ctx context.Context, orgID, id string) error
	}
	// BannerUseCases manage a site's banner and script blocking.
	BannerUseCases interface {
		Banner(ctx context.Context, orgID, siteID string) (*banner.Banner, error)
		PatchBanner(ctx context.Context, orgID, siteID string, p banner.BannerPatch) (*banner.Banner, error)
		SetScriptBlocking(ctx context.Context, orgID, siteID string, enabled bool) error
	}
	// CategoryUseCases manage a site's categories.
	CategoryUseCases interface {
		Categories(ctx context.Context, orgID, siteID string) ([]*banner.Category, error)
		CreateCategory(ctx context.Context, orgID, siteID string, in banner.CategoryInput) (*banner.Category, error)
		UpdateCategory(ctx context.Context, orgID, siteID, id string, in banner.CategoryInput) (*banner.Category, error)
		DeleteCategory(ctx context.Context, orgID, siteID, id string) error
	}
	// ServiceUseCases manage the services configured on a site.
	ServiceUseCases interface {
		Services(ctx context.Context, orgID, siteID string) ([]*banner.Service, error)
		CreateService(ctx context.Context, orgID, siteID string, in banner.ServiceInput) (*banner.Service, error)
		UpdateService(ctx context.Context, orgID, siteID, id string, in banner.ServiceInput) (*banner.Service, error)
		ImportService(ctx context.Context, orgID, siteID, slug, categorySlug string) (*banner.ImportResult, error)
		DeleteService(ctx context.Context, orgID, siteID, id string) error
	}
	// LibraryUseCases read the service library.
	LibraryUseCases interface {
		LibraryServices(q string) []*library.Service
		LibraryService(slug string) (*library.Service, error)
	}
	// ScanUseCases trigger scans and read their results.
	ScanUseCases interface {
		TriggerScan(ctx context.Context, orgID, siteID string, in scan.ScanInput) (*scan.Scan, error)
		Scans(ctx context.Context, orgID, siteID string) ([]*scan.Scan, error)
		Scan(ctx context.Context, orgID, siteID, scanID string) (*scan.Scan, error)
		ConfigureScan(ctx context.Context, orgID, siteID, scanID string) (*banner.ImportResult, error)
		Trackers(ctx context.Context, orgID, siteID string) (*scan.Trackers, error)
	}
	// PublicBannerUseCases serve the public endpoints a site's banner calls.
	PublicBannerUseCases interface {
		PublicConfig(ctx context.Context, projectKey string, loc core.Location, langs ...string) (*banner.PublicConfig, error)
		Declaration(ctx context.Context, projectKey string, langs ...string) (*banner.Declaration, error)
		TCFConfig(ctx context.Context, projectKey, lang string) (*tcf.TCFPublicConfig, error)
		RecordConsent(ctx context.Context, projectKey string, in consent.ConsentInput) (*consent.ConsentRecord, error)
	}
	// ConsentLogUseCases list, export, prove, count and erase consent records.
	ConsentLogUseCases interface {
		ConsentRecords(ctx context.Context, orgID string, q consent.ConsentQuery) ([]*consent.ConsentRecord, int, error)
		ExportConsentRecords(ctx context.Context, orgID string, q consent.ConsentQuery, fn func(*consent.ConsentRecord) error) error
		ConsentSnapshot(ctx context.Context, orgID, siteID, hash string) (*banner.ConsentSnapshot, error)
		VerifyConsentChain(ctx context.Context, orgID, siteID string) (*consent.ChainReport, error)
		ConsentStats(ctx context.Context, orgID string, q consent.ConsentStatsQuery) (*consent.ConsentStats, error)
		EraseVisitor(ctx context.Context, orgID, siteID, visitorID string) (int, error)
	}
	// ComplianceUseCases report whether a site's banner is set up and obeyed as the rules ask.
	ComplianceUseCases interface {
		Report(ctx context.Context, orgID, siteID string) (*scan.ComplianceReport, error)
	}
	// AuditUseCases read and verify the audit log.
	AuditUseCases interface {
		AuditEntries(ctx context.Context, orgID string, q identity.AuditQuery, cursor string) (*identity.AuditPage, error)
		VerifyAuditLog(ctx context.Context, orgID string) (*identity.AuditReport, error)
	}
	// SSOUseCases manage the organization's own single sign-on provider (owners).
	SSOUseCases interface {
		SSOConfig(ctx context.Context, orgID string) (*identity.SSOConfig, error)
		PutSSOConfig(ctx context.Context, orgID string, in identity.SSOInput) (*identity.SSOConfig, error)
		DeleteSSOConfig(ctx context.Context, orgID string) error
	}
	// VerifierUseCases tell a verifier's credential (core/verifier) from anything else.
	VerifierUseCases interface {
		Valid(ctx context.Context, token, projectKey string) bool
		IssueForSite(ctx context.Context, orgID, siteID string) (*verifier.Issued, error)
	}
	// EdgeUseCases serve the rule sets edges apply to a site's HTML (core/edge).
	EdgeUseCases interface {
		EdgeRuleSet(ctx context.Context, projectKey string) (*edge.RuleSet, error)
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
	VerifierUseCases
	EdgeUseCases
	ExperimentUseCases
	AnalyticsUseCases
}

// FromCore picks the handlers' use cases out of core's.
func FromCore(uc *usecases.UseCases) UseCases {
	return UseCases{
		AuthUseCases: uc.Orgs, APIKeyUseCases: uc.Orgs, SiteUseCases: uc.Sites, BannerUseCases: uc.Banners,
		CategoryUseCases: uc.Categories, ServiceUseCases: uc.Services, LibraryUseCases: uc.Library,
		ScanUseCases: uc.Scans, PublicBannerUseCases: uc.PublicBanner, ConsentLogUseCases: uc.ConsentLog, ComplianceUseCases: uc.Compliance, WebhookUseCases: uc.Webhooks, DigestUseCases: uc.Digests, HealthUseCases: uc.Health,
		AuditUseCases: uc.AuditLog, SSOUseCases: uc.Users, VerifierUseCases: uc.Verifiers, AnalyticsUseCases: analyticsOf(uc),
		EdgeUseCases:       uc.Edge,
		ExperimentUseCases: uc.Experiments,
	}
}

// analyticsOf is core's analytics, or nil (not a nil pointer in an interface) without them.
func analyticsOf(uc *usecases.UseCases) AnalyticsUseCases {
	if uc.Analytics == nil {
		return nil
	}
	return uc.Analytics
}
