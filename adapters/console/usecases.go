package console

import (
	"context"
	"time"

	"github.com/consentd/consentd/adapters/console/analyticsview"
	"github.com/consentd/consentd/adapters/console/experimentview"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/watch"
	"github.com/consentd/consentd/library"
)

// The use cases the console calls, declared here where they are consumed, as the methods of
// core's services it calls; core's services satisfy them all. The API declares its own
// (adapters/httpapi): the two adapters are siblings, and neither imports the other.
type (
	// AuthUseCases authenticate API keys (the console's sign-in with a key).
	AuthUseCases interface {
		AuthenticateKey(ctx context.Context, key string) (*core.Actor, error)
	}
	// APIKeyUseCases manage the organization's API keys.
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
	// BannerUseCases edit a site's banner and script blocking, and preview a draft with the
	// patch's own checks and code (core.Banners.PreviewBanner).
	BannerUseCases interface {
		Banner(ctx context.Context, orgID, siteID string) (*banner.Banner, error)
		PatchBanner(ctx context.Context, orgID, siteID string, p banner.BannerPatch) (*banner.Banner, error)
		PreviewBanner(ctx context.Context, orgID, siteID string, p banner.BannerPatch) (*banner.Banner, error)
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
	// DigestUseCases say whether the sites' digests are emailed (the server has mail settings).
	DigestUseCases interface {
		Sends() bool
	}
	// WebhookUseCases manage the organization's webhook endpoints and read their deliveries.
	WebhookUseCases interface {
		CreateEndpoint(ctx context.Context, orgID string, in watch.WebhookInput) (*event.WebhookEndpoint, error)
		Endpoints(ctx context.Context, orgID string) ([]*event.WebhookEndpoint, error)
		Endpoint(ctx context.Context, orgID, id string) (*event.WebhookEndpoint, error)
		DeleteEndpoint(ctx context.Context, orgID, id string) error
		Deliveries(ctx context.Context, orgID, endpointID string, page, limit int) ([]*event.WebhookDelivery, int, error)
		SendTest(ctx context.Context, orgID, id string) (*event.WebhookDelivery, error)
	}
	// UserUseCases sign members in and manage members and invitations.
	UserUseCases interface {
		SignIn(ctx context.Context, email, password string) (*identity.SignInResult, error)
		SignInCode(ctx context.Context, secret, code string) (*identity.SignInResult, error)
		CodeSignInEmail(ctx context.Context, secret string) (string, error)
		NewTOTP(ctx context.Context, userID, secret string) (*identity.TOTPSetup, error)
		TOTPEnabled(ctx context.Context, userID string) (bool, error)
		ChangePassword(ctx context.Context, userID, current, password string) error
		EnableTOTP(ctx context.Context, userID, secret, code string) ([]string, error)
		RecoveryCodesLeft(ctx context.Context, userID string) (int, error)
		NewRecoveryCodes(ctx context.Context, userID, code string) ([]string, error)
		ResetMemberTOTP(ctx context.Context, orgID, userID string) error
		DisableTOTP(ctx context.Context, userID, code string) error
		UserActor(ctx context.Context, userID, orgID string) (*core.Actor, error)
		Memberships(ctx context.Context, userID string) ([]*identity.Membership, error)
		Members(ctx context.Context, orgID string) ([]*identity.Membership, error)
		Invite(ctx context.Context, orgID, email string, role core.Role) (string, error)
		MailInvitation(ctx context.Context, orgID, email string, role core.Role, link string) (bool, error)
		Invitation(ctx context.Context, secret string) (*identity.OneTimeToken, error)
		AcceptInvitation(ctx context.Context, secret, email, name, password string) (string, error)
		JoinInvitation(ctx context.Context, secret, userID string) (string, error)
		ResetPassword(ctx context.Context, secret, password string) (*identity.User, error)
		ChangeRole(ctx context.Context, orgID, userID string, role core.Role) error
		RemoveMember(ctx context.Context, orgID, userID string) error
		SignInExternal(ctx context.Context, p identity.SSOPolicy, id identity.ExternalIdentity) (*identity.User, error)
	}
	// PreviewUseCases give the banner preview the site's public configuration, which the
	// draft is applied to.
	PreviewUseCases interface {
		PublicConfig(ctx context.Context, projectKey string, loc core.Location, langs ...string) (*banner.PublicConfig, error)
	}
	// OrgFinderUseCases find an organization by ID or name (single sign-on's form), and the
	// caller a session opened with an API key acts as.
	OrgFinderUseCases interface {
		FindOrganization(ctx context.Context, ref string) (*identity.Organization, error)
		SSOOrgForEmail(ctx context.Context, email string) (string, error)
		SessionKeyActor(ctx context.Context, orgID, keyID string) (*core.Actor, error)
	}
	// TCFUseCases give the banner page's TCF section the deployment's CMP ID and the GVL.
	TCFUseCases interface {
		TCFChoices(ctx context.Context) (*tcf.TCFChoices, error)
	}
	// RegionStatsUseCases split the statistics by the visitor's place.
	RegionStatsUseCases interface {
		ConsentRegions(ctx context.Context, orgID, siteID string, from, to time.Time) ([]consent.RegionCount, error)
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
	ConsentLogUseCases
	PreviewUseCases
	RegionStatsUseCases
	TCFUseCases
	APIKeyUseCases
	ComplianceUseCases
	AuditUseCases
	SSOUseCases
	OrgFinderUseCases
	WebhookUseCases
	DigestUseCases
	Analytics   analyticsview.UseCases  // the analytics page (core/analytics)
	Experiments experimentview.UseCases // the experiments pages (core/experiment)
}

// orgFinder finds organizations for sign-in: by name or ID (Orgs), by an email's domain (Users).
type orgFinder struct {
	*identity.Orgs
	users *identity.Users
}

func (f orgFinder) SSOOrgForEmail(ctx context.Context, email string) (string, error) {
	return f.users.SSOOrgForEmail(ctx, email)
}

// FromCore picks the console's use cases out of core's.
func FromCore(uc *usecases.UseCases) UseCases {
	return UseCases{
		AuthUseCases: uc.Orgs, SessionUseCases: uc.Sessions, UserUseCases: uc.Users, SiteUseCases: uc.Sites, BannerUseCases: uc.Banners,
		CategoryUseCases: uc.Categories, ServiceUseCases: uc.Services, LibraryUseCases: uc.Library,
		ScanUseCases: uc.Scans, ConsentLogUseCases: uc.ConsentLog, PreviewUseCases: uc.PublicBanner, RegionStatsUseCases: uc.ConsentLog, APIKeyUseCases: uc.Orgs,
		ComplianceUseCases: uc.Compliance, AuditUseCases: uc.AuditLog, SSOUseCases: uc.Users, OrgFinderUseCases: orgFinder{uc.Orgs, uc.Users},
		WebhookUseCases: uc.Webhooks, DigestUseCases: uc.Digests,
		TCFUseCases: uc.Banners, Analytics: uc.Analytics, Experiments: uc.Experiments,
	}
}
