package usecases

import (
	"context"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/core/watch"
)

// Store is everything the use cases persist. Adapters implement it for SQLite, Postgres and
// (in tests) memory, and all of them pass coretest.StoreContract.
type Store interface {
	identity.OrgStore
	core.SiteStore
	banner.BannerStore
	banner.CategoryStore
	banner.ServiceStore
	scan.ScanStore
	consent.ConsentStore
	identity.AuditStore
	identity.SessionStore
	watch.WebhookStore
	identity.UserStore
	identity.SSOStore
	watch.DigestStore
	tcf.GVLStore
	verifier.CredentialStore
	experiment.ExperimentStore
	// InTx runs fn in a transaction: fn's writes through tx commit together when it returns
	// nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
}
