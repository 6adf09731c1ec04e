package core

import (
	"context"
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
