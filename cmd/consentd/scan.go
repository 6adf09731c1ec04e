package main

import (
	"context"
	"fmt"
	"os"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/library"
)

func scan(ctx context.Context, args []string) error {
	var opts crawler.Options
	var libDir string
	fs := newFlags("scan")
	fs.IntVar(&opts.MaxPages, "max-pages", crawler.DefaultMaxPages, "most pages to fetch")
	fs.BoolVar(&opts.AllowPrivate, "scan-allow-private", false, "allow loopback, private and link-local targets (env CONSENTD_SCAN_ALLOW_PRIVATE)")
	fs.BoolVar(&opts.AllowPrivate, "allow-private", false, "short for --scan-allow-private")
	fs.StringVar(&opts.StorefrontPassword, "password", "", "storefront password, submitted when the shop shows its password page")
	fs.StringVar(&libDir, "library-dir", "", "directory of extra or overriding library entries")
	urls, err := parse(fs, args)
	if err != nil {
		return err
	}
	opts.StartURLs = urls
	if len(opts.StartURLs) == 0 {
		return fmt.Errorf("usage: consentd scan [--max-pages N] [--scan-allow-private] [--password P] URL [URL...]")
	}
	engine, err := app.LoadEngine(libDir)
	if err != nil {
		return err
	}
	res, err := engine.Crawl(ctx, opts)
	if err != nil {
		return err
	}
	return printJSON(res)
}

func libraryLint(args []string) error {
	pos, err := parse(newFlags("library lint"), args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("usage: consentd library lint DIR")
	}
	problems := library.LintExtension(pos[0])
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems", len(problems))
	}
	fmt.Fprintln(os.Stderr, "no problems")
	return nil
}

func libraryImportOCD(args []string) error {
	var out string
	fs := newFlags("library import-ocd")
	fs.StringVar(&out, "out", "", "directory to write the entries to (required); use it as CONSENTD_LIBRARY_DIR")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || out == "" {
		return fmt.Errorf("usage: consentd library import-ocd FILE.csv --out DIR")
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	builtin, err := library.Load("")
	if err != nil {
		return err
	}
	svcs, warnings, err := library.ImportOCD(f, builtin)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	if err := library.WriteServices(out, svcs); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d services to %s\n", len(svcs), out)
	return nil
}
