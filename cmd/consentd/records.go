package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
)

// recordsVerify recomputes a site's chain of consent records and prints the report; a broken
// chain is an error (exit status 1), so that scripts and cron jobs notice.
func recordsVerify(ctx context.Context, args []string) error {
	var site string
	return withApp(ctx, "records verify", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		bind(fs, "site", &site)
	}, func(a *app.App) error {
		if site == "" {
			return fmt.Errorf("--site is required")
		}
		rep, err := a.UseCases().ConsentLog.VerifyAnyConsentChain(ctx, site)
		if err != nil {
			return fmt.Errorf("--site %q: %s (in database %s)", site, core.ErrorMessage(err), a.DatabaseName())
		}
		if err := printJSON(rep); err != nil {
			return err
		}
		if !rep.OK {
			return fmt.Errorf("the consent log of site %s is broken at batch %d: %s", site, rep.Break.BatchSeq, rep.Break.Problem)
		}
		return nil
	})
}
