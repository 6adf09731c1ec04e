package core_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/consentd/consentd/core"
)

// publicByDesign are the use cases that run without a caller, each with its reason. Every
// other method of the use cases answers forbidden when called without one (no actor in the
// context): TestNoActorNoRight finds them by reflection, so a new method is covered from
// the day it is written.
var publicByDesign = map[string]string{
	// A site's banner, on visitors' browsers: identified by the site's public project key.
	"PublicBanner.Declaration":   "the site's cookie declaration, served to its visitors",
	"PublicBanner.PublicConfig":  "the banner's configuration, served to the site's visitors",
	"PublicBanner.RecordConsent": "a visitor's consent, posted by the banner (rate-limited by the adapter)",
	"PublicBanner.TCFConfig":     "the TCF part of the banner's configuration, served to the site's visitors",
	"RuleSets.EdgeRuleSet":       "the site's edge rule set, served to the edges in front of its pages (derived from its public configuration)",
	"Analytics.RecordEvents":     "a page view's interaction events, sent by the banner: counted, never stored per event (rate-limited by the adapter)",
	"Analytics.CountDecision":    "takes no context: called by PublicBanner.RecordConsent for a decision it stored",
	"Experiments.ForVisitor":     "the running experiment's variants for a visitor's loader, derived from the site's public configuration",
	"Verifiers.Valid":            "a verifier's request to the public endpoints: the credential the server issued is the authorization",
	"Digests.Unsubscribe":        "the unsubscribe link of a digest email: its token is the authorization",
	"Digests.Sends":              "takes no context: whether the deployment has mail settings, no organization's data (the console says so beside a digest)",
	"Health.Ready":               "the readiness probe, which reads nothing but the store's reachability",
	"Library.LibraryServices":    "takes no context: the catalog of known services is the same public reference for everyone",
	"Library.LibraryService":     "takes no context: the catalog of known services is the same public reference for everyone",
	// Authentication: what establishes the caller cannot require one.
	"Orgs.Authenticate":         "turns an API key into its organization: the key is the credential",
	"Orgs.AuthenticateKey":      "turns an API key into its actor: the key is the credential",
	"Orgs.SessionKeyActor":      "turns a console session opened with an API key into its actor: the session is the credential",
	"Orgs.FindOrganization":     "sign-in by single sign-on finds the organization the person names (its ID and name only)",
	"Users.SignIn":              "password sign-in: the password is the credential (limited by Sessions.SignInRetryAfter)",
	"Users.CodeSignInEmail":     "the second sign-in step's page: its one-time token is the authorization",
	"Users.SignInCode":          "the second sign-in step: the one-time token and the code are the credentials",
	"Users.SignInExternal":      "single sign-on: the identity provider's verified identity is the credential",
	"Users.SSOSignInConfig":     "the identity provider of an organization, needed to start single sign-on",
	"Users.SSOConfigured":       "whether the sign-in page offers single sign-on",
	"Users.SSOOrgForEmail":      "sign-in by single sign-on finds the organization by the domain of the email the person types (its ID only)",
	"Users.Invitation":          "the invitation page: its one-time token is the authorization",
	"Users.AcceptInvitation":    "accepting an invitation: its one-time token is the authorization, and it acts as the person who joins",
	"Users.ResetLink":           "a forgotten password: makes a link mailed to the address, never shown to the caller",
	"Users.ResetPassword":       "a password reset: its one-time token is the authorization, and it acts as the person",
	"Users.UserActor":           "builds the actor of a signed-in session: the session is the credential",
	"Users.Memberships":         "the organizations of a signed-in session's user, to choose from: the session is the credential",
	"Sessions.StartSession":     "opens the session a sign-in earned (the sign-in use case is the check)",
	"Sessions.ResumeSession":    "turns a session cookie into its session: the cookie is the credential",
	"Sessions.EndSession":       "sign-out: the session token is the credential",
	"Sessions.MoveSessionKey":   "moves the adapter's own session to the successor of its rotated key",
	"Sessions.SetFlash":         "a notice on the adapter's own session",
	"Sessions.TakeFlash":        "a notice on the adapter's own session",
	"Sessions.SignInRetryAfter": "the sign-in limit, asked before the credentials are checked",
	"Sessions.SignInFailed":     "the sign-in limit, counting a failure of the credentials",
}

// TestNoActorNoRight calls every use case without a caller, then as a system actor without
// a name, and expects forbidden: no actor means no right, whatever the arguments (all zero
// here).
func TestNoActorNoRight(t *testing.T) {
	m, _, _ := newCore(t)
	seen := map[string]bool{}
	uc := reflect.ValueOf(m.UseCases).Elem()
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	for i := range uc.NumField() {
		svc := uc.Field(i)
		if svc.Kind() != reflect.Pointer || svc.IsNil() {
			t.Fatalf("UseCases.%s: not a built service", uc.Type().Field(i).Name)
		}
		typ := svc.Type()
		for j := range typ.NumMethod() {
			method := typ.Method(j)
			name := typ.Elem().Name() + "." + method.Name
			seen[name] = true
			if _, ok := publicByDesign[name]; ok {
				continue
			}
			ft := method.Type // receiver first
			if ft.NumIn() < 2 || ft.In(1) != ctxType || ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != errType {
				t.Errorf("%s takes no context or returns no error: check its caller, or list it in publicByDesign with the reason", name)
				continue
			}
			t.Run(name, func(t *testing.T) {
				n := ft.NumIn()
				if ft.IsVariadic() {
					n--
				}
				for what, ctx := range map[string]context.Context{
					"without a caller":               context.Background(),
					"as a system actor with no name": core.WithActor(context.Background(), core.System("")),
				} {
					args := []reflect.Value{svc, reflect.ValueOf(ctx)}
					for k := 2; k < n; k++ {
						args = append(args, reflect.Zero(ft.In(k)))
					}
					err := call(method.Func, args)
					if code := core.ErrorCode(err); code != core.CodeForbidden {
						t.Errorf("%s: %v (code %q), want forbidden", what, err, code)
					}
				}
			})
		}
	}
	for name := range publicByDesign {
		if !seen[name] {
			t.Errorf("publicByDesign names %s, which is no use case", name)
		}
	}
}

// call calls f and returns its error, a panic as an error.
func call(f reflect.Value, args []reflect.Value) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	out := f.Call(args)
	err, _ = out[len(out)-1].Interface().(error)
	return err
}

// TestSystemOnlyUseCases: what only the operator's command line and the jobs do is refused
// to an organization's owner.
func TestSystemOnlyUseCases(t *testing.T) {
	m, _, _ := newCore(t)
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	owner := core.WithActor(context.Background(), &core.Actor{Kind: core.ActorKey, ID: "k", Name: "owner key", OrgID: org.ID, Role: core.RoleOwner})
	for name, f := range map[string]func() error{
		"CreateOrganization":    func() error { _, err := m.Orgs.CreateOrganization(owner, "mine"); return err },
		"Organizations":         func() error { _, err := m.Orgs.Organizations(owner); return err },
		"RunSchedules":          func() error { _, err := m.ScanWorker.RunSchedules(owner); return err },
		"ApplyConsentRetention": func() error { _, err := m.ConsentLog.ApplyConsentRetention(owner); return err },
		"DispatchConsents":      func() error { _, err := m.Webhooks.DispatchConsents(owner); return err },
	} {
		if err := f(); core.ErrorCode(err) != core.CodeForbidden {
			t.Errorf("%s as an owner: %v, want forbidden", name, err)
		}
	}
}
