package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/library"
)

// reach are the flags of the commands that scan sites from the command line (scan, verify):
// limits, the private-address policy, the storefront password, the library, connect-to rules,
// an extra CA and the browser.
type reach struct {
	set              app.ScanSettings
	maxPages         int
	password, libDir string
}

func (r *reach) register(fs *flag.FlagSet) {
	bind(fs, "max-pages", &r.maxPages)
	bind(fs, "scan-allow-private", &r.set.AllowPrivate)
	bind(fs, "password", &r.password)
	bind(fs, "library-dir", &r.libDir)
	bind(fs, "scan-connect-to", &r.set.ConnectTo)
	bind(fs, "scan-ca-cert", &r.set.CACert)
	bind(fs, "chromium-path", &r.set.ChromiumPath)
}

// options are the scan options of urls.
func (r *reach) options(urls []string) (crawler.Options, error) {
	opts, err := app.ScanOptions(r.set)
	if err != nil {
		return opts, err
	}
	opts.StartURLs, opts.MaxPages, opts.StorefrontPassword = urls, r.maxPages, r.password
	return opts, nil
}

func scan(ctx context.Context, args []string) error {
	var r reach
	var mode string
	fs := newFlags("scan")
	r.register(fs)
	bind(fs, "scan-mode", &mode, "static, deep (headless Chromium) or auto: deep when a browser is installed")
	urls, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	errs := []error{err}
	if len(urls) == 0 {
		errs = append(errs, errors.New("no URL to scan (usage: consentd scan [flags] URL [URL...]; 'consentd scan --help' lists the flags)"))
	}
	if !core.ValidScanMode(mode) || mode == core.ScanVerify {
		errs = append(errs, fmt.Errorf("--scan-mode (CONSENTD_SCAN_MODE) %q: must be static, deep or auto ('consentd verify URL' verifies)", mode))
	}
	opts, err := r.options(urls)
	if err = errors.Join(append(errs, err)...); err != nil {
		return err
	}
	engine, err := app.LoadEngine(r.libDir)
	if err != nil {
		return err
	}
	var res *crawler.Result
	browsers := app.NewBrowsers(r.set)
	defer browsers.Close()
	if mode == core.ScanDeep || (mode == core.ScanAuto && browsers.Available() == nil) {
		res, err = engine.DeepCrawl(ctx, opts, browsers)
	} else {
		res, err = engine.Crawl(ctx, opts)
	}
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
	bind(fs, "out", &out)
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
