package consent

import (
	"context"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/tcf"
)

// Store is what the consent and proof use cases read and write: this package's own port, with the parts of the
// kernel's and other capabilities' ports it writes in the same transaction. Adapters
// implement it through the composition root's store (core/usecases.Store).
type Store interface {
	ConsentStore
	banner.ServiceStore
	core.SiteStore
	core.AuditWriter
	event.EventStore
	tcf.GVLStore
	// InTx runs fn in a transaction: fn's writes through tx commit together when it
	// returns nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
}
