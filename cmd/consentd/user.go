package main

import (
	"context"
	"flag"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
)

func userCreate(ctx context.Context, args []string) error {
	var org, email, name, role string
	return withApp(ctx, "user create", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		consoleAddress(fs, cfg)
		bind(fs, "org", &org)
		bind(fs, "email", &email)
		bind(fs, "name", &name, "the person's name")
		bind(fs, "role", &role)
	}, func(a *app.App) error {
		orgID, err := findOrg(ctx, a, org)
		if err != nil {
			return err
		}
		u, err := a.UseCases().Users.CreateMember(ctx, orgID, email, name, "", core.Role(role))
		if err != nil {
			return err
		}
		out := map[string]string{"id": u.ID, "email": u.Email, "organizationId": orgID, "role": role}
		if u.PasswordHash == "" {
			secret, err := a.UseCases().Users.ResetLink(ctx, u.Email)
			if err != nil {
				return err
			}
			out["passwordLink"] = a.ConsoleURL() + "/reset/" + secret
		}
		return printJSON(out)
	})
}

func userResetPassword(ctx context.Context, args []string) error {
	var email string
	return withApp(ctx, "user reset-password", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		consoleAddress(fs, cfg)
		bind(fs, "email", &email)
	}, func(a *app.App) error {
		secret, err := a.UseCases().Users.ResetLink(ctx, email)
		if err != nil {
			return inDatabase(err, app.Config{DatabaseURL: a.DatabaseName()})
		}
		return printJSON(map[string]string{"email": email, "passwordLink": a.ConsoleURL() + "/reset/" + secret})
	})
}

// userResetTOTP turns off a person's two-step sign-in, for an owner who lost their
// authenticator and their recovery codes with nobody left to reset it in the console; the
// audit log of each of their organizations records it, with this command as the actor.
func userResetTOTP(ctx context.Context, args []string) error {
	var email string
	return withApp(ctx, "user reset-totp", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		bind(fs, "email", &email)
	}, func(a *app.App) error {
		u, err := a.UseCases().Users.ResetTOTP(ctx, email)
		if err != nil {
			return inDatabase(err, app.Config{DatabaseURL: a.DatabaseName()})
		}
		return printJSON(map[string]any{"id": u.ID, "email": u.Email, "twoStepSignIn": false,
			"next": "their password alone signs them in; they set up a new authenticator on the console's account page"})
	})
}

// consoleAddress binds the settings the printed links are made from: the public URL, or
// else the serve address.
func consoleAddress(fs *flag.FlagSet, cfg *app.Config) {
	bind(fs, "addr", &cfg.Addr)
	bind(fs, "public-url", &cfg.PublicURL)
}
