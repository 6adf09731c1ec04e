package app

import (
	"github.com/consentd/consentd/adapters/collycrawler"
	"github.com/consentd/consentd/crawler"
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

func newCrawler(catalog *library.Catalog, cfg Config) (*collycrawler.Crawler, error) {
	engine, err := NewEngine(catalog)
	if err != nil {
		return nil, err
	}
	return collycrawler.New(engine, crawler.Options{AllowPrivate: cfg.ScanAllowPrivate}), nil
}
