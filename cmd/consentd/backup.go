package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/consentd/consentd/app"
)

func backup(ctx context.Context, args []string) error {
	var to string
	return withApp(ctx, "backup", args, func(fs *flag.FlagSet, cfg *app.Config) {
		existing(fs, cfg)
		bind(fs, "to", &to)
	}, func(a *app.App) error {
		if to == "" {
			return fmt.Errorf("usage: consentd backup --to FILE")
		}
		if err := a.Backup(ctx, to); err != nil {
			return err
		}
		fmt.Printf("backup written to %s\n", to)
		return nil
	})
}
