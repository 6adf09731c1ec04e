package usecases

import (
	"context"

	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/core/watch"
)

// Each capability declares its own Store with an InTx that hands it its own Store; these views
// give it the composite store with that InTx, so that a transaction opened by one capability
// stays that capability's narrow port. Unwrap gives adapters (the queue, which enqueues in
// the store's own transaction) the store underneath.

type eventStore struct{ Store }

func (s eventStore) InTx(ctx context.Context, fn func(tx event.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(eventStore{tx}) })
}

func (s eventStore) Unwrap() any { return s.Store }

type tcfStore struct{ Store }

func (s tcfStore) InTx(ctx context.Context, fn func(tx tcf.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(tcfStore{tx}) })
}

func (s tcfStore) Unwrap() any { return s.Store }

type identityStore struct{ Store }

func (s identityStore) InTx(ctx context.Context, fn func(tx identity.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(identityStore{tx}) })
}

func (s identityStore) Unwrap() any { return s.Store }

type bannerStore struct{ Store }

func (s bannerStore) InTx(ctx context.Context, fn func(tx banner.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(bannerStore{tx}) })
}

func (s bannerStore) Unwrap() any { return s.Store }

type scanStore struct{ Store }

func (s scanStore) InTx(ctx context.Context, fn func(tx scan.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(scanStore{tx}) })
}

func (s scanStore) Unwrap() any { return s.Store }

type consentStore struct{ Store }

func (s consentStore) InTx(ctx context.Context, fn func(tx consent.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(consentStore{tx}) })
}

func (s consentStore) Unwrap() any { return s.Store }

type watchStore struct{ Store }

func (s watchStore) InTx(ctx context.Context, fn func(tx watch.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(watchStore{tx}) })
}

func (s watchStore) Unwrap() any { return s.Store }

type siteStore struct{ Store }

func (s siteStore) InTx(ctx context.Context, fn func(tx site.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(siteStore{tx}) })
}

func (s siteStore) Unwrap() any { return s.Store }

// ForScan is s as the scan capability sees it (for adapters' tests that enqueue scans in a
// transaction of their own).
func ForScan(s Store) scan.Store { return scanStore{s} }

type verifierStore struct{ Store }

func (s verifierStore) InTx(ctx context.Context, fn func(tx verifier.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(verifierStore{tx}) })
}

func (s verifierStore) Unwrap() any { return s.Store }

type experimentStore struct{ Store }

func (s experimentStore) InTx(ctx context.Context, fn func(tx experiment.Store) error) error {
	return s.Store.InTx(ctx, func(tx Store) error { return fn(experimentStore{tx}) })
}

func (s experimentStore) Unwrap() any { return s.Store }
