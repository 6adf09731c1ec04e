package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

const ssoDoc = "The organization's own OpenID Connect provider (Keycloak, Entra ID, Google Workspace, Authentik...) for the " +
	"console's single sign-on: a person whose verified email is in `allowedDomains` joins on their first sign-in with " +
	"`defaultRole` (never owner). Register PUBLIC_URL/sso/callback as the redirect URI at the provider; people sign in at " +
	"PUBLIC_URL/sso/{organizationId}/start or give the organization's name on the sign-in page. The client secret is " +
	"stored to call the provider and never returned. Saving does not contact the provider: the first sign-in discovers " +
	"it (issuer + /.well-known/openid-configuration). The issuer must be https, and loopback and private addresses " +
	"are refused, unless the operator sets CONSENTD_OIDC_ALLOW_PRIVATE=true. An organization without a provider of its " +
	"own uses the deployment's (the --oidc-* settings) when the operator configured it for that organization."

// ssoDomain is an allowed email domain; its schema is core's rule.
type ssoDomain string

// Schema implements huma.SchemaProvider.
func (ssoDomain) Schema(huma.Registry) *huma.Schema {
	maxLen := core.MaxDomain
	return &huma.Schema{Type: huma.TypeString, Pattern: identity.EmailDomainPattern, MaxLength: &maxLen,
		Description: "An email domain, e.g. acme.example."}
}

func (h *handlers) registerSSO(api huma.API) {
	o := op("getSso", http.MethodGet, "/sso", "Get the organization's single sign-on", "Single sign-on", 0)
	o.Description = "The organization's own provider, without its secret; 404 when it has none. " + ssoDoc
	huma.Register(api, o, func(ctx context.Context, _ *struct{}) (*struct{ Body *identity.SSOConfig }, error) {
		c, err := h.m.SSOConfig(ctx, orgOf(ctx))
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *identity.SSOConfig }{c}, nil
	})

	type ssoPutBody struct {
		Issuer         string      `json:"issuer" format:"uri" maxLength:"500" doc:"The provider's issuer URL (https)."`
		ClientID       string      `json:"clientId" minLength:"1" maxLength:"500" doc:"consentd's client ID at the provider."`
		ClientSecret   *string     `json:"clientSecret,omitempty" minLength:"1" maxLength:"500" doc:"consentd's client secret at the provider. Required the first time, when the organization has no single sign-on yet (the schema cannot say so: a PUT without it then answers 400); left out later, the stored one is kept. Never returned."`
		AllowedDomains []ssoDomain `json:"allowedDomains" minItems:"1" maxItems:"20" doc:"Email domains whose people may join, at least one (lower-cased, duplicates removed)."`
		DefaultRole    string      `json:"defaultRole" enum:"admin,editor,privacy,viewer" doc:"Role of a person on their first sign-in."`
	}
	o = op("putSso", http.MethodPut, "/sso", "Set the organization's single sign-on", "Single sign-on", 0)
	o.Description = "Creates or replaces the organization's own provider; answers it without its secret. Recorded in the audit log " +
		"as `sso.update` (the secret only as replaced). " + ssoDoc
	huma.Register(api, o, func(ctx context.Context, in *struct{ Body ssoPutBody }) (*struct{ Body *identity.SSOConfig }, error) {
		b := in.Body
		domains := make([]string, len(b.AllowedDomains))
		for i, d := range b.AllowedDomains {
			domains[i] = string(d)
		}
		c, err := h.m.PutSSOConfig(ctx, orgOf(ctx), identity.SSOInput{Issuer: b.Issuer, ClientID: b.ClientID, ClientSecret: b.ClientSecret,
			AllowedDomains: domains, DefaultRole: core.Role(b.DefaultRole)})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *identity.SSOConfig }{c}, nil
	})

	o = op("deleteSso", http.MethodDelete, "/sso", "Remove the organization's single sign-on", "Single sign-on", 0)
	o.Description = "Removes the organization's own provider (`sso.delete` in the audit log); 404 when it has none. Members who " +
		"joined through it stay members. " + ssoDoc
	huma.Register(api, o, func(ctx context.Context, _ *struct{}) (*successBody, error) {
		if err := h.m.DeleteSSOConfig(ctx, orgOf(ctx)); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})
}
