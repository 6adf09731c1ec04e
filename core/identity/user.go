package identity

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
)

// User is a person who signs in to the console: by email and password, or through the
// organization's single sign-on (Subject set, no password).
type User struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
	// PasswordHash is the argon2id hash in PHC form; "" for a user without a password.
	PasswordHash string `json:"-"`
	// Issuer and Subject name the user at an OpenID provider.
	Issuer  string `json:"-"`
	Subject string `json:"-"`
	// TOTPSecret is the base32 secret of the user's authenticator app; "" when the user has
	// no second factor. TOTPStep is the last time step whose code was used (replay guard).
	TOTPSecret string    `json:"-"`
	TOTPStep   int64     `json:"-"`
	CreatedAt  time.Time `json:"createdAt"`
}

// DisplayName is what the audit log and the console show: the name, else the email.
func (u *User) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

// Membership is a user's role in an organization.
type Membership struct {
	UserID  string    `json:"userId"`
	OrgID   string    `json:"organizationId"`
	OrgName string    `json:"organizationName"`
	Role    core.Role `json:"role"`
	Email   string    `json:"email"`
	Name    string    `json:"name"`
	// TOTP says whether the member has two-step sign-in on.
	TOTP      bool      `json:"totp"`
	CreatedAt time.Time `json:"createdAt"`
}

// Token kinds: a one-time link.
const (
	// TokenInvite adds its email to the organization with its role.
	TokenInvite = "invite"
	// TokenReset sets a new password for its email.
	TokenReset = "reset"
)

// OneTimeToken is a link sent or shown to a person: an invitation, a password reset or the
// first owner's link. Only the SHA-256 of the token is stored (ID).
type OneTimeToken struct {
	ID        string
	Kind      string
	OrgID     string
	Email     string
	Role      core.Role
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// UserStore persists users, memberships and one-time tokens.
type UserStore interface {
	// CreateUser stores a user; conflict when the email (case-insensitive, stored lower case)
	// or the issuer and subject exist.
	CreateUser(ctx context.Context, u *User) error
	// User finds a user by ID; UserByEmail by lower-case email; UserBySubject by OpenID
	// issuer and subject. not_found when there is none.
	User(ctx context.Context, id string) (*User, error)
	UserByEmail(ctx context.Context, email string) (*User, error)
	UserBySubject(ctx context.Context, issuer, subject string) (*User, error)
	// SetUserPassword replaces a user's password hash; SetUserSubject links the user to an
	// OpenID identity. not_found when the user does not exist.
	SetUserPassword(ctx context.Context, id, hash string) error
	SetUserSubject(ctx context.Context, id, issuer, subject string) error
	// SetUserTOTP sets the user's authenticator secret ("" turns the second factor off) and
	// the last used time step. not_found when the user does not exist.
	SetUserTOTP(ctx context.Context, id, secret string, step int64) error
	// UseTOTPStep records step as the user's last used time step, atomically; conflict when
	// it is not after the last one (a code used again), not_found when there is no user.
	UseTOTPStep(ctx context.Context, id string, step int64) error
	// CountUsers counts every user.
	CountUsers(ctx context.Context) (int, error)
	// PutMembership adds a user to an organization or changes their role.
	PutMembership(ctx context.Context, m *Membership) error
	// Membership finds a user's membership of an organization; not_found when there is none.
	Membership(ctx context.Context, orgID, userID string) (*Membership, error)
	// Memberships lists a user's organizations, oldest first; Members an organization's
	// members, oldest first (both with names and emails filled in).
	Memberships(ctx context.Context, userID string) ([]*Membership, error)
	Members(ctx context.Context, orgID string) ([]*Membership, error)
	// DeleteMembership removes a user from an organization; not_found when not a member.
	DeleteMembership(ctx context.Context, orgID, userID string) error
	// CreateToken stores a one-time token; Token finds one by ID (not_found); UseToken marks
	// it used at at, conflict when it was used already or does not exist.
	CreateToken(ctx context.Context, t *OneTimeToken) error
	Token(ctx context.Context, id string) (*OneTimeToken, error)
	UseToken(ctx context.Context, id string, at time.Time) error
	RecoveryCodeStore
}

// User rules.
const (
	MinPassword = 10
	MaxPassword = 200
	MaxEmail    = 254
	MaxUserName = 100
	// InviteTTL is how long an invitation link works; ResetTTL a password reset link.
	InviteTTL = 7 * 24 * time.Hour
	ResetTTL  = time.Hour
)

// NormalizeEmail checks an email address and returns it lower case.
func NormalizeEmail(field, email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > MaxEmail || !strings.Contains(email, "@") {
		return "", core.FieldErrorf(field, "must be an email address")
	}
	return email, nil
}

// checkUserName checks a person's name and returns it trimmed.
func checkUserName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxUserName {
		return "", core.FieldErrorf("name", "must be at most %d characters", MaxUserName)
	}
	return name, core.CheckText("name", name)
}

// Users are the use cases of people: sign-in, members, invitations, password resets.
type Users struct {
	Store Store
	Clock core.Clock
	NewID func() string
	Audit core.Auditor
	// Mailer emails invitations; nil when no SMTP server is configured.
	Mailer core.Mailer
	// ssoAllowPrivate lets organizations' issuers be http URLs.
	SSOAllowPrivate bool
}

// UserActor is the caller a signed-in member makes in one of their organizations;
// unauthorized when they are not (or no longer) a member.
func (users *Users) UserActor(ctx context.Context, userID, orgID string) (*core.Actor, error) {
	ms, err := users.Store.Membership(ctx, orgID, userID)
	if core.IsNotFound(err) {
		return nil, core.Errorf(core.CodeUnauthorized, "not a member of this organization")
	}
	if err != nil {
		return nil, err
	}
	name := ms.Name
	if name == "" {
		name = ms.Email
	}
	return &core.Actor{Kind: core.ActorUser, ID: userID, Name: name, OrgID: orgID, Role: ms.Role}, nil
}

// SignIn checks an email and password and returns the user with their organizations;
// unauthorized when they do not match (the same answer for an unknown email). For a user
// with a second factor it returns only the CodeToken of the code step (SignInCode).
func (users *Users) SignIn(ctx context.Context, email, password string) (*SignInResult, error) {
	bad := core.Errorf(core.CodeUnauthorized, "wrong email or password")
	email, err := NormalizeEmail("email", email)
	if err != nil || len(password) > MaxPassword {
		return nil, bad
	}
	u, err := users.Store.UserByEmail(ctx, email)
	if core.IsNotFound(err) {
		CheckPassword(dummyHash(), password)
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	if u.PasswordHash == "" || !CheckPassword(u.PasswordHash, password) {
		return nil, bad
	}
	ms, err := users.Store.Memberships(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, core.Errorf(core.CodeUnauthorized, "this account belongs to no organization any more")
	}
	if u.TOTPSecret != "" {
		secret, err := users.newToken(ctx, users.Store, &OneTimeToken{Kind: TokenTOTP, Email: u.Email}, TOTPSignInTTL)
		if err != nil {
			return nil, err
		}
		return &SignInResult{CodeToken: secret}, nil
	}
	return &SignInResult{User: u, Memberships: ms}, nil
}

// Memberships lists a user's organizations.
func (users *Users) Memberships(ctx context.Context, userID string) ([]*Membership, error) {
	return users.Store.Memberships(ctx, userID)
}

// Members lists the organization's members.
func (users *Users) Members(ctx context.Context, orgID string) ([]*Membership, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, ""); err != nil {
		return nil, err
	}
	return users.Store.Members(ctx, orgID)
}

// CreateMember is the operator's `consentd user create`: it creates the user when the email
// is new (with password, which may be empty for a user who will set one through a reset
// link) and makes them a member of the organization with role.
func (users *Users) CreateMember(ctx context.Context, orgID, email, name, password string, role core.Role) (*User, error) {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return nil, err
	}
	if !core.ValidRole(role) {
		return nil, core.FieldErrorf("role", "must be one of owner, admin, editor, privacy, viewer")
	}
	var u *User
	err := users.Store.InTx(ctx, func(tx Store) error {
		if _, err := tx.Organization(ctx, orgID); err != nil {
			return err
		}
		var err error
		if u, err = users.ensureUser(ctx, tx, email, name, password); err != nil {
			return err
		}
		return users.putMember(ctx, tx, orgID, u, role)
	})
	return u, err
}

// ensureUser finds the user of email or creates them with name and password.
func (users *Users) ensureUser(ctx context.Context, tx Store, email, name, password string) (*User, error) {
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if u, err := tx.UserByEmail(ctx, email); err == nil || !core.IsNotFound(err) {
		return u, err
	}
	if name, err = checkUserName(name); err != nil {
		return nil, err
	}
	u := &User{ID: users.NewID(), Email: email, Name: name, CreatedAt: users.Clock.Now()}
	if password != "" {
		if err := checkPassword(password); err != nil {
			return nil, err
		}
		u.PasswordHash = HashPassword(password)
	}
	return u, tx.CreateUser(ctx, u)
}

func (users *Users) putMember(ctx context.Context, tx Store, orgID string, u *User, role core.Role) error {
	old, err := tx.Membership(ctx, orgID, u.ID)
	if err != nil && !core.IsNotFound(err) {
		return err
	}
	if err := tx.PutMembership(ctx, &Membership{UserID: u.ID, OrgID: orgID, Role: role, CreatedAt: users.Clock.Now()}); err != nil {
		return err
	}
	if old != nil {
		return users.Audit.Record(ctx, tx, orgID, "", core.AuditMemberRole, u.ID, map[string]any{"email": u.Email, "role": old.Role},
			map[string]any{"email": u.Email, "role": role})
	}
	return users.Audit.Record(ctx, tx, orgID, "", core.AuditMemberJoin, u.ID, nil, map[string]any{"email": u.Email, "role": role})
}

// newToken stores a one-time token and returns its secret.
func (users *Users) newToken(ctx context.Context, tx Store, t *OneTimeToken, ttl time.Duration) (string, error) {
	secret := NewSessionToken()
	t.ID, t.CreatedAt, t.ExpiresAt = SessionID(secret), users.Clock.Now(), users.Clock.Now().Add(ttl)
	return secret, tx.CreateToken(ctx, t)
}

// ChangeRole changes a member's role. The last owner cannot be demoted.
func (users *Users) ChangeRole(ctx context.Context, orgID, userID string, role core.Role) error {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return err
	}
	if !core.ValidRole(role) {
		return core.FieldErrorf("role", "must be one of owner, admin, editor, privacy, viewer")
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		old, err := tx.Membership(ctx, orgID, userID)
		if err != nil {
			return err
		}
		if old.Role == core.RoleOwner && role != core.RoleOwner {
			if err := lastOwner(ctx, tx, orgID); err != nil {
				return err
			}
		}
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		return users.putMember(ctx, tx, orgID, u, role)
	})
}

func lastOwner(ctx context.Context, tx Store, orgID string) error {
	ms, err := tx.Members(ctx, orgID)
	if err != nil {
		return err
	}
	owners := 0
	for _, x := range ms {
		if x.Role == core.RoleOwner {
			owners++
		}
	}
	if owners <= 1 {
		return core.Errorf(core.CodeConflict, "the organization's last owner cannot leave or be demoted: make another member owner first")
	}
	return nil
}

// RemoveMember removes a member (or lets a member leave) and ends their sessions in the
// organization at once. The last owner cannot leave.
func (users *Users) RemoveMember(ctx context.Context, orgID, userID string) error {
	if a := core.ActorOf(ctx); a == nil || a.Kind != core.ActorUser || a.ID != userID {
		if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
			return err
		}
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		old, err := tx.Membership(ctx, orgID, userID)
		if err != nil {
			return err
		}
		if old.Role == core.RoleOwner {
			if err := lastOwner(ctx, tx, orgID); err != nil {
				return err
			}
		}
		if err := tx.DeleteMembership(ctx, orgID, userID); err != nil {
			return err
		}
		if _, err := tx.DeleteUserSessions(ctx, orgID, userID); err != nil {
			return err
		}
		return users.Audit.Record(ctx, tx, orgID, "", core.AuditMemberRemove, userID, map[string]any{"email": old.Email, "role": old.Role}, nil)
	})
}

// BootstrapOwnerLink returns a one-time link (its secret) to create the first owner of the
// deployment's first organization, while the deployment has no user; "" once it has one.
func (users *Users) BootstrapOwnerLink(ctx context.Context) (string, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return "", err
	}
	n, err := users.Store.CountUsers(ctx)
	if err != nil || n > 0 {
		return "", err
	}
	orgs, err := users.Store.Organizations(ctx)
	if err != nil || len(orgs) == 0 {
		return "", err
	}
	var secret string
	err = users.Store.InTx(ctx, func(tx Store) error {
		var err error
		secret, err = users.newToken(ctx, tx, &OneTimeToken{Kind: TokenInvite, OrgID: orgs[0].ID, Email: "", Role: core.RoleOwner, CreatedBy: "bootstrap"}, InviteTTL)
		return err
	})
	return secret, err
}
