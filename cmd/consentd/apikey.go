package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/consentd/consentd/app"
)

// keyCommand parses --org and one positional key ID (when wantID), then runs fn with the
// organization's ID.
func keyCommand(ctx context.Context, name string, args []string, wantID bool, extra func(*flag.FlagSet),
	fn func(a *app.App, orgID, keyID string) error) error {
	cfg := app.Config{ExistingDatabase: true}
	var org string
	fs := newFlags(name)
	storeFlags(fs, &cfg)
	bind(fs, "org", &org)
	extra(fs)
	pos, err := configure(fs, args, &cfg)
	if err != nil {
		return err
	}
	if wantID != (len(pos) == 1) || len(pos) > 1 {
		if wantID {
			return fmt.Errorf("usage: consentd %s --org ORG KEY_ID ('consentd apikey list' shows the IDs)", name)
		}
		return fmt.Errorf("usage: consentd %s --org ORG", name)
	}
	cfg.OneShot = true
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	orgID, err := findOrg(ctx, a, org)
	if err != nil {
		return inDatabase(err, cfg)
	}
	var id string
	if wantID {
		id = pos[0]
	}
	return inDatabase(fn(a, orgID, id), cfg)
}

func apikeyList(ctx context.Context, args []string) error {
	return keyCommand(ctx, "apikey list", args, false, func(*flag.FlagSet) {}, func(a *app.App, orgID, _ string) error {
		keys, err := a.UseCases().Orgs.APIKeys(ctx, orgID)
		if err != nil {
			return err
		}
		return printJSON(keys)
	})
}

func apikeyRevoke(ctx context.Context, args []string) error {
	return keyCommand(ctx, "apikey revoke", args, true, func(*flag.FlagSet) {}, func(a *app.App, orgID, id string) error {
		if err := a.UseCases().Orgs.RevokeAPIKey(ctx, orgID, id); err != nil {
			return err
		}
		return printJSON(map[string]any{"id": id, "revoked": true})
	})
}

func apikeyRotate(ctx context.Context, args []string) error {
	var grace time.Duration
	return keyCommand(ctx, "apikey rotate", args, true, func(fs *flag.FlagSet) {
		bind(fs, "grace", &grace)
	}, func(a *app.App, orgID, id string) error {
		k, plain, prev, err := a.UseCases().Orgs.RotateAPIKey(ctx, orgID, id, &grace)
		if err != nil {
			return err
		}
		return printJSON(map[string]any{"id": k.ID, "organizationId": k.OrganizationID, "name": k.Name, "key": plain,
			"previous": map[string]any{"id": prev.ID, "expiresAt": prev.ExpiresAt}})
	})
}
