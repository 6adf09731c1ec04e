package main

import (
	"context"
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
	set                     app.ScanSettings
	maxPages                int
	password, libDir        string
	caCert, envCACert       string
	connectTo, envConnectTo repeatFlag
}

func (r *reach) register(fs *flag.FlagSet) {
	fs.IntVar(&r.maxPages, "max-pages", crawler.DefaultMaxPages, "most pages to fetch")
	fs.BoolVar(&r.set.AllowPrivate, "scan-allow-private", false, "allow loopback, private and link-local targets (env CONSENTD_SCAN_ALLOW_PRIVATE)")
	fs.BoolVar(&r.set.AllowPrivate, "allow-private", false, "short for --scan-allow-private")
	fs.StringVar(&r.password, "password", "", "storefront password, submitted when the shop shows its password page")
	fs.StringVar(&r.libDir, "library-dir", "", "directory of extra or overriding library entries")
	fs.Var(&r.connectTo, "connect-to", "HOST:PORT:CONNECT_HOST:CONNECT_PORT, curl's meaning (empty HOST or PORT: any); repeatable")
	fs.Var(&r.envConnectTo, "scan-connect-to", "same as --connect-to, comma-separated (env CONSENTD_SCAN_CONNECT_TO)")
	fs.StringVar(&r.caCert, "ca-cert", "", "PEM file of an extra trusted root certificate")
	fs.StringVar(&r.envCACert, "scan-ca-cert", "", "same as --ca-cert (env CONSENTD_SCAN_CA_CERT)")
	fs.StringVar(&r.set.ChromiumPath, "chromium-path", "", "Chromium executable for deep scans (env CONSENTD_CHROMIUM_PATH, default: chromium on the PATH)")
}

// options are the scan options of urls; the command line wins over the environment.
func (r *reach) options(urls []string) (crawler.Options, error) {
	r.set.ConnectTo, r.set.CACert = first(r.connectTo, r.envConnectTo), firstString(r.caCert, r.envCACert)
	opts, err := app.ScanOptions(r.set)
	if err != nil {
		return opts, err
	}
	opts.StartURLs, opts.MaxPages, opts.StorefrontPassword = urls, r.maxPages, r.password
	return opts, nil
}

func scan(ctx context.Context, args []string) error {
	var r reach
	var mode, envMode string
	fs := newFlags("scan")
	r.register(fs)
	fs.StringVar(&mode, "mode", "", "static, deep (headless Chromium) or auto: deep when a browser is installed (default: CONSENTD_SCAN_MODE, else auto)")
	fs.StringVar(&envMode, "scan-mode", core.ScanAuto, "same as --mode (env CONSENTD_SCAN_MODE)")
	urls, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		return fmt.Errorf("usage: consentd scan [--mode static|deep|auto] [--max-pages N] [--scan-allow-private] [--password P] [--connect-to RULE]... [--ca-cert FILE] URL [URL...]")
	}
	mode = firstString(mode, envMode)
	if !core.ValidScanMode(mode) || mode == core.ScanVerify {
		return fmt.Errorf("--mode %q: must be static, deep or auto ('consentd verify URL' verifies)", mode)
	}
	opts, err := r.options(urls)
	if err != nil {
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

func first(a, b []string) []string {
	if len(a) > 0 {
		return a
	}
	return b
}

func firstString(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
