package event

import (
	"context"
)

// Store is what the event publisher read and write: this package's own port, with the parts of the
// kernel's and other capabilities' ports it writes in the same transaction. Adapters
// implement it through the composition root's store (core/usecases.Store).
type Store interface {
	EventStore
	// InTx runs fn in a transaction: fn's writes through tx commit together when it
	// returns nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
}
