package core

import (
	"context"
	"slices"
	"strings"
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
	DefaultRole    Role
}

// SignInExternal signs in a person vouched for by the organization's OpenID provider: the
// user of that issuer and subject, else the user of that email (then linked to the
// identity), else a new user; a person not yet a member joins with the default role. An
// unverified email or one outside the allowed domains is refused (unauthorized).
func (users *Users) SignInExternal(ctx context.Context, p SSOPolicy, id ExternalIdentity) (*User, error) {
	email, err := NormalizeEmail("email", id.Email)
	if err != nil || !id.EmailVerified {
		return nil, Errorf(CodeUnauthorized, "the identity provider gave no verified email address")
	}
	domain := email[strings.LastIndex(email, "@")+1:]
	if !slices.Contains(p.AllowedDomains, domain) {
		return nil, Errorf(CodeUnauthorized, "email addresses of %s may not sign in to this organization", domain)
	}
	if !ValidRole(p.DefaultRole) || p.DefaultRole == RoleOwner {
		return nil, Errorf(CodeInvalid, "single sign-on: the default role must be admin, editor, privacy or viewer")
	}
	if id.Issuer == "" || id.Subject == "" {
		return nil, Errorf(CodeUnauthorized, "the identity provider gave no subject")
	}
	var u *User
	err = users.store.InTx(ctx, func(tx Store) error {
		var err error
		u, err = tx.UserBySubject(ctx, id.Issuer, id.Subject)
		if IsNotFound(err) {
			u, err = tx.UserByEmail(ctx, email)
			if err == nil {
				err = tx.SetUserSubject(ctx, u.ID, id.Issuer, id.Subject)
			} else if IsNotFound(err) {
				name := strings.TrimSpace(id.Name)
				if len([]rune(name)) > MaxUserName || CheckText("name", name) != nil {
					name = ""
				}
				u = &User{ID: users.newID(), Email: email, Name: name, Issuer: id.Issuer, Subject: id.Subject, CreatedAt: users.now()}
				err = tx.CreateUser(ctx, u)
			}
		}
		if err != nil {
			return err
		}
		if _, err := tx.Membership(ctx, p.OrgID, u.ID); err == nil || !IsNotFound(err) {
			return err
		}
		actx := WithActor(ctx, &Actor{Kind: ActorUser, ID: u.ID, Name: u.DisplayName(), OrgID: p.OrgID, Role: p.DefaultRole})
		return users.putMember(actx, tx, p.OrgID, u, p.DefaultRole)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}
