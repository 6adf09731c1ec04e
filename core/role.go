package core

import (
	"context"
	"slices"
)

// Role is what a member or an API key may do in an organization. The one table of what
// each role allows is rolePermissions; the API and the console both ask Actor.Authorize.
type Role string

// Roles, from the most to the least powerful.
const (
	// RoleOwner may do everything: members, every key, deleting sites.
	RoleOwner Role = "owner"
	// RoleAdmin may do everything but manage members and owner keys.
	RoleAdmin Role = "admin"
	// RoleEditor changes sites' configuration: banner, categories, services, scans.
	RoleEditor Role = "editor"
	// RolePrivacy reads, exports consent records, verifies their chain, looks visitors up
	// and erases them.
	RolePrivacy Role = "privacy"
	// RoleViewer reads, without exports.
	RoleViewer Role = "viewer"
)

// Roles returns every role, most powerful first.
func Roles() []Role { return []Role{RoleOwner, RoleAdmin, RoleEditor, RolePrivacy, RoleViewer} }

// RoleNames returns the roles as strings, for enums.
func RoleNames() []string {
	var out []string
	for _, r := range Roles() {
		out = append(out, string(r))
	}
	return out
}

// ValidRole reports whether r is one of Roles.
func ValidRole(r Role) bool { return slices.Contains(Roles(), r) }

// ParseRole checks a role given by a client (field names it in the message).
func ParseRole(field, s string) (Role, error) {
	r := Role(s)
	if !ValidRole(r) {
		return "", FieldErrorf(field, "must be one of owner, admin, editor, privacy, viewer")
	}
	return r, nil
}

// Rank orders roles for "may not grant more than it has": lower is more powerful.
func (r Role) Rank() int { return slices.Index(Roles(), r) }

// Permission is what an operation needs.
type Permission string

// Permissions. Every operation of the API and every page of the console needs exactly one.
const (
	// PermRead reads sites and everything configured on them, scans, consent records (without
	// a visitor filter), statistics, snapshots, compliance and the library.
	PermRead Permission = "read"
	// PermConfigure changes a site's settings, banner, script blocking, categories and
	// services, and triggers and configures scans.
	PermConfigure Permission = "configure"
	// PermSites creates and deletes sites.
	PermSites Permission = "sites"
	// PermExport exports consent records.
	PermExport Permission = "export"
	// PermVerify verifies the consent-record chain.
	PermVerify Permission = "verify"
	// PermVisitors looks a visitor's records up and erases them.
	PermVisitors Permission = "visitors"
	// PermRetention decides how long a site's proof is kept (consentRetentionDays), which
	// removes its older consent records and the audit entries that follow their retention:
	// the roles that own the proof have it, not those that configure the banner.
	PermRetention Permission = "retention"
	// PermKeys lists, creates, rotates and revokes API keys other than owner keys.
	PermKeys Permission = "keys"
	// PermOwnerKeys creates, rotates and revokes owner keys.
	PermOwnerKeys Permission = "owner_keys"
	// PermMembers manages members, their roles and invitations, and the organization's single
	// sign-on.
	PermMembers Permission = "members"
	// PermAudit reads the audit log and verifies its chain.
	PermAudit Permission = "audit"
	// PermFactors resets a member's second factor (their authenticator and recovery codes),
	// for a member who lost both; never the factor of a member of a higher role.
	PermFactors Permission = "factors"
)

// Permissions returns every permission, in the order of the documented matrix.
func Permissions() []Permission {
	return []Permission{PermRead, PermConfigure, PermSites, PermExport, PermVerify, PermVisitors, PermRetention,
		PermKeys, PermOwnerKeys, PermMembers, PermAudit, PermFactors}
}

// rolePermissions is the one table of roles.
var rolePermissions = map[Role][]Permission{
	RoleOwner:   Permissions(),
	RoleAdmin:   {PermRead, PermConfigure, PermSites, PermExport, PermVerify, PermVisitors, PermRetention, PermKeys, PermAudit, PermFactors},
	RoleEditor:  {PermRead, PermConfigure},
	RolePrivacy: {PermRead, PermExport, PermVerify, PermVisitors, PermRetention},
	RoleViewer:  {PermRead},
}

// Allows reports whether role r has permission p.
func (r Role) Allows(p Permission) bool { return slices.Contains(rolePermissions[r], p) }

// RolesAllowing returns the roles that have p, most powerful first.
func RolesAllowing(p Permission) []Role {
	var out []Role
	for _, r := range Roles() {
		if r.Allows(p) {
			out = append(out, r)
		}
	}
	return out
}

// ScopedAllows reports whether a key limited to some sites may use p on an operation that
// names no site: only reading (the site list shows its sites only) and the library.
func ScopedAllows(p Permission) bool { return p == PermRead }

// Actor kinds.
const (
	ActorKey    = "key"
	ActorUser   = "user"
	ActorSystem = "system"
)

// Actor is who is calling: an API key or a signed-in member, with their organization, role
// and, for a key, the sites it is limited to; or the system (System), which the operator's
// CLI and the background jobs act as, under their own names. Without an actor nothing is
// allowed.
type Actor struct {
	// Kind is ActorKey, ActorUser or ActorSystem.
	Kind string
	// ID is the key's or the user's ID; Name is what the audit log shows (the key's name and
	// prefix, the user's name or email).
	ID   string
	Name string
	// OrgID is the organization acted on.
	OrgID string
	Role  Role
	// SiteIDs, when not nil, are the only sites the actor may act on.
	SiteIDs []string
	// SessionID is the console session the request came through ("" for the API).
	SessionID string
}

// Scoped reports whether the actor is limited to some sites.
func (a *Actor) Scoped() bool { return a.SiteIDs != nil }

// CanSite reports whether the actor may act on site siteID at all.
func (a *Actor) CanSite(siteID string) bool { return !a.Scoped() || slices.Contains(a.SiteIDs, siteID) }

// Can reports whether the actor has permission p (ignoring site scope); no actor (nil) has
// none.
func (a *Actor) Can(p Permission) bool { return a != nil && a.Role.Allows(p) }

// Authorize answers forbidden unless the actor may use p on site siteID ("" for an
// operation that names no site). No actor (nil) may do nothing.
func (a *Actor) Authorize(p Permission, siteID string) error {
	if a == nil {
		return errNoActor()
	}
	if !a.Role.Allows(p) {
		return Errorf(CodeForbidden, "the %s role may not do this (it needs the %q permission)", a.Role, p)
	}
	if !a.Scoped() {
		return nil
	}
	if siteID == "" {
		if !ScopedAllows(p) {
			return Errorf(CodeForbidden, "this API key is limited to some sites and may not act on the whole organization")
		}
		return nil
	}
	if !a.CanSite(siteID) {
		return Errorf(CodeForbidden, "this API key is not allowed on site %s", siteID)
	}
	return nil
}

type actorKey struct{}

// WithActor returns ctx carrying the caller; the use cases authorize and audit with it.
// Adapters that authenticate callers (API, console) must set it; the operator's CLI and
// background jobs set a System actor named after themselves. A use case called without
// one answers forbidden, except the few public by design (a visitor's consent, sign-in).
func WithActor(ctx context.Context, a *Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// System is the operator's CLI or a background job acting as name ("scan worker",
// "consentd site create"): it may do everything, and the audit log records it under that
// name.
func System(name string) *Actor { return &Actor{Kind: ActorSystem, Name: name, Role: RoleOwner} }

// ActorOf returns the caller carried by ctx, or nil when there is none (which may do
// nothing).
func ActorOf(ctx context.Context) *Actor {
	a, _ := ctx.Value(actorKey{}).(*Actor)
	return a
}

// errNoActor is the answer to a use case called without a caller.
func errNoActor() error {
	return Errorf(CodeForbidden, "no caller: sign in or use an API key")
}

// callerOf is the caller in ctx, refused when there is none or when it is a system actor
// without a name (the audit log could not say which command or job acted).
func callerOf(ctx context.Context) (*Actor, error) {
	a := ActorOf(ctx)
	if a == nil || (a.Kind == ActorSystem && a.Name == "") {
		return nil, errNoActor()
	}
	return a, nil
}

// Authorize is every use case's check, for adapters that must answer before a use case
// runs (a streamed export commits its status first): the caller in ctx must have p on
// siteID ("" for the organization as a whole) in organization orgID. Without a caller it
// answers forbidden; the system (System) may do everything. A caller of another
// organization gets not_found, as if the site did not exist.
func Authorize(ctx context.Context, p Permission, orgID, siteID string) error {
	a, err := callerOf(ctx)
	if err != nil {
		return err
	}
	if a.Kind == ActorSystem {
		return nil
	}
	if orgID != "" && a.OrgID != orgID {
		return Errorf(CodeNotFound, "not found")
	}
	return a.Authorize(p, siteID)
}

// AuthorizeSystem is the check of what only the operator's CLI and the background jobs do
// (running scans, retention, creating organizations): the caller must be the system.
func AuthorizeSystem(ctx context.Context) error {
	a, err := callerOf(ctx)
	if err != nil {
		return err
	}
	if a.Kind != ActorSystem {
		return Errorf(CodeForbidden, "only the operator's command line and the background jobs may do this")
	}
	return nil
}

// ConsentReadPermission is what listing consent records needs: reading, or looking a
// visitor up when the listing is filtered to one visitor.
func ConsentReadPermission(visitorID string) Permission {
	if visitorID != "" {
		return PermVisitors
	}
	return PermRead
}
