package app

import (
	"fmt"
	"os"

	"github.com/consentd/consentd/adapters/sitecrawler"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library"
)

// NewEngine builds the scan engine over the catalog's services: the one place that
// constructs it, for the scan workers and 'consentd scan' alike.
func NewEngine(catalog *library.Catalog) (*crawler.Engine, error) {
	ix, err := library.NewIndex(catalog.Services())
	if err != nil {
		return nil, err
	}
	return crawler.New(ix), nil
}

// LoadEngine loads the library (the built-in catalog plus the entries in libraryDir, when
// not empty) and builds the scan engine over it.
func LoadEngine(libraryDir string) (*crawler.Engine, error) {
	catalog, err := library.Load(libraryDir)
	if err != nil {
		return nil, err
	}
	return NewEngine(catalog)
}

// ScanSettings are the settings every scan of a process applies, for the workers and
// 'consentd scan' alike.
type ScanSettings struct {
	AllowPrivate bool
	// ConnectTo are connect-to rules (HOST:PORT:CONNECT_HOST:CONNECT_PORT); CACert a PEM file
	// of extra root certificates. Both apply to static and deep scans.
	ConnectTo []string
	CACert    string
	// ChromiumPath is the browser of deep scans (empty: looked up on the PATH); Browsers the
	// size of the process's browser pool (0: core.DefaultBrowsers).
	ChromiumPath string
	Browsers     int
}

// ScanOptions turns settings into the engine's options, with core's scan limits.
func ScanOptions(s ScanSettings) (crawler.Options, error) {
	opts := crawler.Options{AllowPrivate: s.AllowPrivate, RootCAFile: s.CACert,
		MaxBrowserBytes: scan.ScanByteBudget, QuietFor: scan.DeepQuietFor, QuietMax: scan.DeepQuietMax, PageTimeout: scan.DeepPageTimeout,
		PagesAtOnce: scan.DeepPagesAtOnce, StatesAtOnce: scan.VerifyStatesAtOnce, StatePagesAtOnce: scan.VerifyStatePagesAtOnce}
	for _, r := range s.ConnectTo {
		rule, err := netguard.ParseConnectTo(r)
		if err != nil {
			return opts, err
		}
		opts.ConnectTo = append(opts.ConnectTo, rule)
	}
	return opts, nil
}

// NewBrowsers builds a process's browser pool for deep scans; no browser starts before a deep
// scan needs one.
func NewBrowsers(s ScanSettings) *browser.Pool {
	n := s.Browsers
	if n <= 0 {
		n = scan.DefaultBrowsers
	}
	return browser.NewPool(browser.Options{Path: s.ChromiumPath, Size: n, UserAgent: crawler.DefaultUserAgent})
}

func (c Config) scanSettings() ScanSettings {
	return ScanSettings{AllowPrivate: c.ScanAllowPrivate, ConnectTo: c.ScanConnectTo, CACert: c.ScanCACert,
		ChromiumPath: c.ChromiumPath, Browsers: c.ScanBrowsers}
}

// validateScanSettings reports connect-to rules that do not parse and a CA file that cannot be
// read, naming the setting.
func validateScanSettings(c Config) []error {
	var errs []error
	for _, r := range c.ScanConnectTo {
		if _, err := netguard.ParseConnectTo(r); err != nil {
			errs = append(errs, fmt.Errorf("scan-connect-to (CONSENTD_SCAN_CONNECT_TO): %w", err))
		}
	}
	if c.ScanCACert != "" {
		if _, err := os.ReadFile(c.ScanCACert); err != nil {
			errs = append(errs, fmt.Errorf("scan-ca-cert (CONSENTD_SCAN_CA_CERT) %q: %w", c.ScanCACert, err))
		}
	}
	if c.ScanMode != "" && !core.ValidScanMode(c.ScanMode) {
		errs = append(errs, fmt.Errorf("scan-mode (CONSENTD_SCAN_MODE) %q: must be static, deep or auto", c.ScanMode))
	}
	if c.ScanBrowsers < 0 {
		errs = append(errs, fmt.Errorf("scan-browsers (CONSENTD_SCAN_BROWSERS) %d: must be 1 or more (0: %d)", c.ScanBrowsers, scan.DefaultBrowsers))
	}
	return errs
}

func newCrawler(catalog *library.Catalog, cfg Config) (*sitecrawler.Crawler, *browser.Pool, error) {
	engine, err := NewEngine(catalog)
	if err != nil {
		return nil, nil, err
	}
	opts, err := ScanOptions(cfg.scanSettings())
	if err != nil {
		return nil, nil, err
	}
	browsers := NewBrowsers(cfg.scanSettings())
	return sitecrawler.New(engine, opts, browsers), browsers, nil
}
