package app

import (
	"github.com/consentd/consentd/adapters/collycrawler"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/library"
)

func newCrawler(catalog *library.Catalog, cfg Config) (*collycrawler.Crawler, error) {
	return collycrawler.New(catalog, crawler.Options{AllowPrivate: cfg.ScanAllowPrivate})
}
