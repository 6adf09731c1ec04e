package console

import (
	"context"
	"time"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
)

// The use cases the console calls. What it shares with the API (keys, sites, banners,
// categories, services, the library, scans, consent records, compliance, the audit log) it
// consumes through the API's interfaces (httpapi), one set for both; the interfaces here are
// the console's own. core's services satisfy them all.
type (
	// UserUseCases sign members in and manage members and invitations.
	UserUseCases interface {
		SignIn(ctx context.Context, email, password string) (*identity.SignInResult, error)
		SignInCode(ctx context.Context, secret, code string) (*identity.SignInResult, error)
		CodeSignInEmail(ctx context.Context, secret string) (string, error)
		NewTOTP(ctx context.Context, userID, secret string) (*identity.TOTPSetup, error)
		TOTPEnabled(ctx context.Context, userID string) (bool, error)
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
	httpapi.AuthUseCases
	SessionUseCases
	UserUseCases
	httpapi.SiteUseCases
	httpapi.BannerUseCases
	httpapi.CategoryUseCases
	httpapi.ServiceUseCases
	httpapi.LibraryUseCases
	httpapi.ScanUseCases
	httpapi.ConsentLogUseCases
	PreviewUseCases
	RegionStatsUseCases
	TCFUseCases
	httpapi.APIKeyUseCases
	httpapi.ComplianceUseCases
	httpapi.AuditUseCases
	httpapi.SSOUseCases
	OrgFinderUseCases
	httpapi.WebhookUseCases
}

// FromCore picks the console's use cases out of core's.
func FromCore(uc *usecases.UseCases) UseCases {
	return UseCases{
		AuthUseCases: uc.Orgs, SessionUseCases: uc.Sessions, UserUseCases: uc.Users, SiteUseCases: uc.Sites, BannerUseCases: uc.Banners,
		CategoryUseCases: uc.Categories, ServiceUseCases: uc.Services, LibraryUseCases: uc.Library,
		ScanUseCases: uc.Scans, ConsentLogUseCases: uc.ConsentLog, PreviewUseCases: uc.PublicBanner, RegionStatsUseCases: uc.ConsentLog, APIKeyUseCases: uc.Orgs,
		ComplianceUseCases: uc.Compliance, AuditUseCases: uc.AuditLog, SSOUseCases: uc.Users, OrgFinderUseCases: uc.Orgs,
		WebhookUseCases: uc.Webhooks,
		TCFUseCases:     uc.Banners,
	}
}
