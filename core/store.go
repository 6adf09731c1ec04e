package core

import (
	"context"

	"github.com/consentd/consentd/library"
)

// Store is everything the use cases persist. Adapters implement it for SQLite, Postgres and
// (in tests) memory, and all of them pass coretest.StoreContract.
type Store interface {
	OrgStore
	SiteStore
	BannerStore
	CategoryStore
	ServiceStore
	ScanStore
	ConsentStore
	AuditStore
	SessionStore
	WebhookStore
	UserStore
	SSOStore
	DigestStore
	GVLStore
	// InTx runs fn in a transaction: fn's writes through tx commit together when it returns
	// nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
}

// Catalog is the library of known services (implemented by *library.Catalog).
type Catalog interface {
	// Services lists every service, sorted by slug.
	Services() []*library.Service
	// Service finds a service by slug.
	Service(slug string) (*library.Service, bool)
	// Search lists the services matching q, best first.
	Search(q string) []*library.Service
}
