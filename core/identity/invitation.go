package identity

import (
	"context"

	"github.com/consentd/consentd/core"
)

// Invite makes a one-time invitation link (its secret) for email to join the organization
// with role, valid InviteTTL. Only owners manage members.
func (users *Users) Invite(ctx context.Context, orgID, email string, role core.Role) (string, error) {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return "", err
	}
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return "", err
	}
	if !core.ValidRole(role) {
		return "", core.FieldErrorf("role", "must be one of owner, admin, editor, privacy, viewer")
	}
	var secret string
	err = users.Store.InTx(ctx, func(tx Store) error {
		var by string
		if a := core.ActorOf(ctx); a != nil {
			by = a.Name
		}
		var err error
		if secret, err = users.newToken(ctx, tx, &OneTimeToken{Kind: TokenInvite, OrgID: orgID, Email: email, Role: role, CreatedBy: by}, InviteTTL); err != nil {
			return err
		}
		return users.Audit.Record(ctx, tx, orgID, "", core.AuditMemberInvite, email, nil, map[string]any{"email": email, "role": role})
	})
	return secret, err
}

// Invitation returns the live one-time token of secret; not_found when it does not exist,
// was used or expired.
func (users *Users) Invitation(ctx context.Context, secret string) (*OneTimeToken, error) {
	t, err := users.Store.Token(ctx, SessionID(secret))
	if err != nil {
		return nil, core.Errorf(core.CodeNotFound, "this link is not valid: ask for a new one")
	}
	if t.UsedAt != nil || !users.Clock.Now().Before(t.ExpiresAt) {
		return nil, core.Errorf(core.CodeNotFound, "this link was used already or has expired: ask for a new one")
	}
	return t, nil
}

// AcceptInvitation is the invitation form of someone not signed in (or the first owner's
// link, which names no email: the person gives theirs). For an email without an account it
// creates the account with name and password and makes it a member with the invitation's
// role; for an email with an account it changes nothing and checks no password: the person
// signs in through the sign-in, with its failure limit, and then joins (JoinInvitation).
// Both answer alike (the email to sign in as), after the same checks and the same work (a
// password hash), so that the form tells nobody whether an email has an account. An email
// invitation stays usable until its invitee, signed in, joins with it; the first owner's link
// is used up by the account it creates.
func (users *Users) AcceptInvitation(ctx context.Context, secret, email, name, password string) (string, error) {
	t, err := users.Invitation(ctx, secret)
	if err != nil {
		return "", err
	}
	if t.Kind != TokenInvite {
		return "", core.Errorf(core.CodeNotFound, "this link is not an invitation")
	}
	if t.Email != "" {
		email = t.Email
	}
	if email, err = NormalizeEmail("email", email); err != nil {
		return "", err
	}
	if name, err = checkUserName(name); err != nil {
		return "", err
	}
	if err := checkPassword(password); err != nil {
		return "", err
	}
	hash := HashPassword(password)
	err = users.Store.InTx(ctx, func(tx Store) error {
		if _, err := tx.UserByEmail(ctx, email); err == nil || !core.IsNotFound(err) {
			return err // an account: nothing to do before its holder signs in
		}
		if t.Email == "" {
			if err := tx.UseToken(ctx, t.ID, users.Clock.Now()); err != nil {
				return core.Errorf(core.CodeNotFound, "this link was used already: ask for a new one")
			}
		}
		u := &User{ID: users.NewID(), Email: email, Name: name, PasswordHash: hash, CreatedAt: users.Clock.Now()}
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		ctx := core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: u.ID, Name: u.DisplayName(), OrgID: t.OrgID, Role: t.Role})
		return users.putMember(ctx, tx, t.OrgID, u, t.Role)
	})
	if err != nil {
		return "", err
	}
	return email, nil
}

// JoinInvitation accepts an invitation for the signed-in user userID: they join the
// organization with its role when their email is the invited one (any email for a link that
// names none). It checks no password (the person signed in through the sign-in) and uses
// the link up; forbidden, with the link still usable, for a user of another email. It
// returns the organization joined.
func (users *Users) JoinInvitation(ctx context.Context, secret, userID string) (string, error) {
	// The caller is the signed-in person themself: no one joins on another's behalf.
	if a := core.ActorOf(ctx); a == nil || a.Kind != core.ActorUser || a.ID != userID {
		return "", core.Errorf(core.CodeForbidden, "only the person signed in may join with an invitation")
	}
	t, err := users.Invitation(ctx, secret)
	if err != nil {
		return "", err
	}
	if t.Kind != TokenInvite {
		return "", core.Errorf(core.CodeNotFound, "this link is not an invitation")
	}
	err = users.Store.InTx(ctx, func(tx Store) error {
		u, err := tx.User(ctx, userID)
		if core.IsNotFound(err) {
			return core.Errorf(core.CodeUnauthorized, "session ended: sign in again")
		}
		if err != nil {
			return err
		}
		if t.Email != "" && u.Email != t.Email {
			return core.Errorf(core.CodeForbidden, "this invitation is for %s: sign out, then sign in as %s to join", t.Email, t.Email)
		}
		if err := tx.UseToken(ctx, t.ID, users.Clock.Now()); err != nil {
			return core.Errorf(core.CodeNotFound, "this link was used already: ask for a new one")
		}
		old, err := tx.Membership(ctx, t.OrgID, u.ID)
		if err != nil && !core.IsNotFound(err) {
			return err
		}
		if old != nil && old.Role == t.Role {
			return nil // joined already (the account was made with this link)
		}
		ctx := core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: u.ID, Name: u.DisplayName(), OrgID: t.OrgID, Role: t.Role})
		return users.putMember(ctx, tx, t.OrgID, u, t.Role)
	})
	if err != nil {
		return "", err
	}
	return t.OrgID, nil
}
