package identity

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// ExternalIdentity is a person as an OpenID provider vouched for them in a verified ID token.
type ExternalIdentity struct {
	Issuer, Subject string
	Email           string
	EmailVerified   bool
	Name            string
}

// SSOPolicy is an organization's single sign-on rule: people whose verified email is in
// one of AllowedDomains join on their first sign-in with DefaultRole.
type SSOPolicy struct {
	OrgID          string
	AllowedDomains []string
	DefaultRole    core.Role
}

// SignInExternal signs in a person vouched for by the organization's OpenID provider: the
// user of that issuer and subject, else the user of that email (then linked to the
// identity), else a new user; a person not yet a member joins with the default role. An
// unverified email or one outside the allowed domains is refused (unauthorized).
func (users *Users) SignInExternal(ctx context.Context, p SSOPolicy, id ExternalIdentity) (*User, error) {
	email, err := NormalizeEmail("email", id.Email)
	if err != nil || !id.EmailVerified {
		return nil, core.Errorf(core.CodeUnauthorized, "the identity provider gave no verified email address")
	}
	domain := email[strings.LastIndex(email, "@")+1:]
	if !slices.Contains(p.AllowedDomains, domain) {
		return nil, core.Errorf(core.CodeUnauthorized, "email addresses of %s may not sign in to this organization", domain)
	}
	if !core.ValidRole(p.DefaultRole) || p.DefaultRole == core.RoleOwner {
		return nil, core.Errorf(core.CodeInvalid, "single sign-on: the default role must be admin, editor, privacy or viewer")
	}
	if id.Issuer == "" || id.Subject == "" {
		return nil, core.Errorf(core.CodeUnauthorized, "the identity provider gave no subject")
	}
	var u *User
	err = users.Store.InTx(ctx, func(tx Store) error {
		var err error
		u, err = tx.UserBySubject(ctx, id.Issuer, id.Subject)
		if core.IsNotFound(err) {
			u, err = tx.UserByEmail(ctx, email)
			if err == nil {
				err = tx.SetUserSubject(ctx, u.ID, id.Issuer, id.Subject)
			} else if core.IsNotFound(err) {
				name := strings.TrimSpace(id.Name)
				if len([]rune(name)) > MaxUserName || core.CheckText("name", name) != nil {
					name = ""
				}
				u = &User{ID: users.NewID(), Email: email, Name: name, Issuer: id.Issuer, Subject: id.Subject, CreatedAt: users.Clock.Now()}
				err = tx.CreateUser(ctx, u)
			}
		}
		if err != nil {
			return err
		}
		if _, err := tx.Membership(ctx, p.OrgID, u.ID); err == nil || !core.IsNotFound(err) {
			return err
		}
		actx := core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: u.ID, Name: u.DisplayName(), OrgID: p.OrgID, Role: p.DefaultRole})
		return users.putMember(actx, tx, p.OrgID, u, p.DefaultRole)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// SSOConfig is an organization's own OpenID provider, set by its owner: the provider's
// issuer, consentd's registration there, and who may join through it. The client secret is
// kept to call the provider and is never shown again.
type SSOConfig struct {
	OrganizationID string `json:"organizationId"`
	// Issuer is the provider's issuer URL (its discovery document is at
	// Issuer/.well-known/openid-configuration).
	Issuer   string `json:"issuer"`
	ClientID string `json:"clientId"`
	// ClientSecret is consentd's secret at the provider; the API and the console never show it.
	ClientSecret   string    `json:"-"`
	AllowedDomains []string  `json:"allowedDomains"`
	DefaultRole    core.Role `json:"defaultRole"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Policy is who may join through the provider.
func (c *SSOConfig) Policy() SSOPolicy {
	return SSOPolicy{OrgID: c.OrganizationID, AllowedDomains: slices.Clone(c.AllowedDomains), DefaultRole: c.DefaultRole}
}

var emailDomain = regexp.MustCompile(EmailDomainPattern)

// SSORoleNames are the roles a person may get on their first single sign-on: every role but
// owner (an owner is made by another owner, never by an identity provider).
func SSORoleNames() []string {
	var out []string
	for _, r := range core.Roles() {
		if r != core.RoleOwner {
			out = append(out, string(r))
		}
	}
	return out
}

// SSOOrgForEmail is the organization whose own single sign-on lets people of email's domain
// in (a domain of its AllowedDomains), for the sign-in page's "your work email": not_found when
// none does, conflict when several do (the person then uses their organization's sign-in
// link). It reads each organization's provider: one query per organization, which a
// deployment has few of.
func (users *Users) SSOOrgForEmail(ctx context.Context, email string) (string, error) {
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return "", err
	}
	_, domain, _ := strings.Cut(email, "@")
	orgs, err := users.Store.Organizations(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, o := range orgs {
		c, err := users.Store.SSOConfig(ctx, o.ID)
		if core.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		if slices.Contains(c.AllowedDomains, domain) {
			found = append(found, o.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", core.Errorf(core.CodeNotFound, "no organization has single sign-on for %s", domain)
	case 1:
		return found[0], nil
	}
	return "", core.Errorf(core.CodeConflict, "several organizations have single sign-on for %s", domain)
}

// SSOStore keeps organizations' single sign-on providers, one per organization.
type SSOStore interface {
	// PutSSOConfig stores the organization's provider, replacing the one it had; not_found
	// when the organization does not exist.
	PutSSOConfig(ctx context.Context, c *SSOConfig) error
	// SSOConfig finds the organization's provider; not_found when it has none.
	SSOConfig(ctx context.Context, orgID string) (*SSOConfig, error)
	// DeleteSSOConfig removes the organization's provider; not_found when it has none.
	DeleteSSOConfig(ctx context.Context, orgID string) error
	// CountSSOConfigs counts the organizations that have a provider.
	CountSSOConfigs(ctx context.Context) (int, error)
}

// Limits of a single sign-on provider.
const (
	// MaxSSODomains bounds the email domains of a provider.
	MaxSSODomains = 20
	// MaxSSOField bounds the client ID and secret.
	MaxSSOField = 500
	// EmailDomainPattern is the form of an allowed email domain: labels of letters, digits and
	// inner hyphens, at least two, separated by dots.
	EmailDomainPattern = `^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$`
)

// SSOInput sets an organization's provider. ClientSecret nil keeps the stored secret (a
// provider being created needs one).
type SSOInput struct {
	Issuer         string
	ClientID       string
	ClientSecret   *string
	AllowedDomains []string
	DefaultRole    core.Role
}

// validate checks the input and returns the domains normalized (lower case, unique, sorted).
func (users *Users) validateSSO(in SSOInput, create bool) ([]string, error) {
	if err := core.ValidateHTTPURL("issuer", in.Issuer); err != nil {
		return nil, err
	}
	u, _ := url.Parse(in.Issuer)
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, core.FieldErrorf("issuer", "must be the provider's issuer URL, without query, fragment or credentials")
	}
	if u.Scheme != "https" && !users.SSOAllowPrivate {
		return nil, core.FieldErrorf("issuer", "must be an https URL (the operator may allow http and private addresses with CONSENTD_OIDC_ALLOW_PRIVATE=true)")
	}
	if in.ClientID = strings.TrimSpace(in.ClientID); in.ClientID == "" || len(in.ClientID) > MaxSSOField || core.CheckText("clientId", in.ClientID) != nil {
		return nil, core.FieldErrorf("clientId", "required, at most %d characters of text", MaxSSOField)
	}
	if in.ClientSecret == nil && create {
		return nil, core.FieldErrorf("clientSecret", "required when the organization has no single sign-on yet")
	}
	if in.ClientSecret != nil && (*in.ClientSecret == "" || len(*in.ClientSecret) > MaxSSOField || core.CheckText("clientSecret", *in.ClientSecret) != nil) {
		return nil, core.FieldErrorf("clientSecret", "required, at most %d characters of text", MaxSSOField)
	}
	if !slices.Contains(SSORoleNames(), string(in.DefaultRole)) {
		return nil, core.FieldErrorf("defaultRole", "must be one of %s", strings.Join(SSORoleNames(), ", "))
	}
	if len(in.AllowedDomains) == 0 || len(in.AllowedDomains) > MaxSSODomains {
		return nil, core.FieldErrorf("allowedDomains", "1 to %d email domains", MaxSSODomains)
	}
	var domains []string
	for _, d := range in.AllowedDomains {
		d = strings.ToLower(strings.TrimSpace(d))
		if !emailDomain.MatchString(d) || len(d) > core.MaxDomain {
			return nil, core.FieldErrorf("allowedDomains", "%q is not an email domain", d)
		}
		if !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	slices.Sort(domains)
	return domains, nil
}

// ssoAudit is what the audit log shows of a provider: everything but the secret.
func ssoAudit(c *SSOConfig) any {
	if c == nil {
		return nil
	}
	return map[string]any{"issuer": c.Issuer, "clientId": c.ClientID, "allowedDomains": c.AllowedDomains, "defaultRole": c.DefaultRole}
}

// SSOConfig returns the organization's own single sign-on provider (without its secret);
// not_found when it has none. Only owners manage it (members permission).
func (users *Users) SSOConfig(ctx context.Context, orgID string) (*SSOConfig, error) {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return nil, err
	}
	c, err := users.Store.SSOConfig(ctx, orgID)
	if err != nil {
		return nil, err
	}
	c.ClientSecret = ""
	return c, nil
}

// PutSSOConfig sets the organization's single sign-on provider (members permission). The
// provider is not contacted: the first sign-in discovers it. The audit log records every
// field but the secret, and that the secret was replaced.
func (users *Users) PutSSOConfig(ctx context.Context, orgID string, in SSOInput) (*SSOConfig, error) {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return nil, err
	}
	var c *SSOConfig
	err := users.Store.InTx(ctx, func(tx Store) error {
		if _, err := tx.Organization(ctx, orgID); err != nil {
			return err
		}
		old, err := tx.SSOConfig(ctx, orgID)
		if err != nil && !core.IsNotFound(err) {
			return err
		}
		domains, err := users.validateSSO(in, old == nil)
		if err != nil {
			return err
		}
		now := users.Clock.Now()
		c = &SSOConfig{OrganizationID: orgID, Issuer: in.Issuer, ClientID: strings.TrimSpace(in.ClientID), AllowedDomains: domains,
			DefaultRole: in.DefaultRole, CreatedAt: now, UpdatedAt: now}
		if old != nil {
			c.CreatedAt, c.ClientSecret = old.CreatedAt, old.ClientSecret
		}
		if in.ClientSecret != nil {
			c.ClientSecret = *in.ClientSecret
		}
		if err := tx.PutSSOConfig(ctx, c); err != nil {
			return err
		}
		changes, err := core.DiffFields(ssoAudit(old), ssoAudit(c))
		if err != nil {
			return err
		}
		if old == nil || old.ClientSecret != c.ClientSecret {
			oldSecret := json.RawMessage("null")
			if old != nil {
				oldSecret = json.RawMessage(`"(hidden)"`)
			}
			changes = append(changes, core.Change{Field: "clientSecret", Old: oldSecret, New: json.RawMessage(`"(hidden, replaced)"`)})
		}
		return users.Audit.RecordChanges(ctx, tx, orgID, "", core.AuditSSOUpdate, orgID, changes)
	})
	if err != nil {
		return nil, err
	}
	out := *c
	out.ClientSecret = ""
	return &out, nil
}

// DeleteSSOConfig removes the organization's own provider (members permission); the
// deployment's provider, when the operator set one for this organization, applies again.
// Members who joined through it keep their membership; those without a password sign in
// again through a reset link.
func (users *Users) DeleteSSOConfig(ctx context.Context, orgID string) error {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return err
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		old, err := tx.SSOConfig(ctx, orgID)
		if err != nil {
			return err
		}
		if err := tx.DeleteSSOConfig(ctx, orgID); err != nil {
			return err
		}
		return users.Audit.Record(ctx, tx, orgID, "", core.AuditSSODelete, orgID, ssoAudit(old), nil)
	})
}

// SSOSignInConfig is the organization's provider with its secret, for the sign-in only (no
// caller is signed in yet); not_found when it has none.
func (users *Users) SSOSignInConfig(ctx context.Context, orgID string) (*SSOConfig, error) {
	return users.Store.SSOConfig(ctx, orgID)
}

// SSOConfigured reports whether any organization has its own provider, so that the sign-in
// page offers single sign-on.
func (users *Users) SSOConfigured(ctx context.Context) (bool, error) {
	n, err := users.Store.CountSSOConfigs(ctx)
	return n > 0, err
}
