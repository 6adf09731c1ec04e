package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/site"
)

// withApp parses a database command's flags (the store flags plus those flags adds, which may
// set fields of the configuration), opens the application and runs fn with it.
func withApp(ctx context.Context, name string, args []string, flags func(*flag.FlagSet, *app.Config), fn func(*app.App) error) error {
	var cfg app.Config
	fs := newFlags(name)
	storeFlags(fs, &cfg)
	flags(fs, &cfg)
	if _, err := configure(fs, args, &cfg); err != nil {
		return err
	}
	// Every command but serve does its work in the database and exits (app.Config.OneShot).
	cfg.OneShot = name != "serve"
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	return inDatabase(fn(a), cfg)
}

// existing makes a command that only reads or adds refuse to create a database.
func existing(_ *flag.FlagSet, cfg *app.Config) { cfg.ExistingDatabase = true }

// inDatabase names the database a command looked in when what it looked for is not there.
func inDatabase(err error, cfg app.Config) error {
	if core.IsNotFound(err) {
		return fmt.Errorf("%s (in database %s)", core.ErrorMessage(err), app.DatabaseName(cfg.DatabaseURL))
	}
	return err
}

func orgList(ctx context.Context, args []string) error {
	return withApp(ctx, "org list", args, existing, func(a *app.App) error {
		orgs, err := a.UseCases().Orgs.Organizations(ctx)
		if err != nil {
			return err
		}
		return printJSON(orgs)
	})
}

// findOrg resolves --org, an organization's ID or name.
func findOrg(ctx context.Context, a *app.App, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("--org is required (an organization's ID or name; 'consentd org list' lists them)")
	}
	o, err := a.UseCases().Orgs.FindOrganization(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("--org %q: %s (in database %s)", ref, core.ErrorMessage(err), a.DatabaseName())
	}
	return o.ID, nil
}

func orgCreate(ctx context.Context, args []string) error {
	var name string
	return withApp(ctx, "org create", args, func(fs *flag.FlagSet, _ *app.Config) {
		bind(fs, "name", &name, "organization name (required)")
	}, func(a *app.App) error {
		o, err := a.UseCases().Orgs.CreateOrganization(ctx, name)
		if err != nil {
			return err
		}
		return printJSON(o)
	})
}

func apikeyCreate(ctx context.Context, args []string) error {
	var org, name string
	return withApp(ctx, "apikey create", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		bind(fs, "org", &org)
		bind(fs, "name", &name, "label of the key")
	}, func(a *app.App) error {
		orgID, err := findOrg(ctx, a, org)
		if err != nil {
			return err
		}
		k, key, err := a.UseCases().Orgs.CreateAPIKey(ctx, orgID, name, "")
		if err != nil {
			return err
		}
		return printJSON(map[string]string{"id": k.ID, "organizationId": k.OrganizationID, "key": key})
	})
}

func siteCreate(ctx context.Context, args []string) error {
	var org, name, url string
	return withApp(ctx, "site create", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		bind(fs, "org", &org)
		bind(fs, "name", &name, "site name (required)")
		bind(fs, "url", &url)
	}, func(a *app.App) error {
		orgID, err := findOrg(ctx, a, org)
		if err != nil {
			return err
		}
		s, err := a.UseCases().Sites.CreateSite(ctx, orgID, site.SiteInput{Name: &name, URL: &url})
		if err != nil {
			return err
		}
		return printJSON(app.SiteJSON(s))
	})
}

func migrate(ctx context.Context, args []string) error {
	// New applies pending migrations.
	return withApp(ctx, "migrate", args, func(*flag.FlagSet, *app.Config) {}, func(*app.App) error {
		fmt.Println("migrations applied")
		return nil
	})
}
