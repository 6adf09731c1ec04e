// Package bunstore is the SQL store of consentd on bun: SQLite (embedded, pure Go) and
// Postgres, with versioned migrations for each dialect.
//
// One file per entity holds its model (which mirrors its table), the explicit conversion to
// and from the core type, so that the domain carries no storage tags, and its queries.
// Dialect specifics live in sqlite.go and postgres.go; migrate.go applies the migrations;
// ids.go checks IDs and text before they reach a driver, and errors.go translates what the
// drivers answer into core errors.
package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/usecases"
)

// Store implements core.Store on a bun database or transaction.
type Store struct {
	db bun.IDB
	// root is the database the store was opened on; Close and Ping act on it.
	root *bun.DB
	// listing is the Postgres pool of listing reads (listingRead); nil on SQLite.
	listing *bun.DB
	tx      *bun.Tx
	// ingest group-commits consent records written outside a transaction; nil in stores
	// handed to InTx functions.
	ingest *groupCommit
	// url is the database URL the store was opened with: Postgres migrations open a session
	// of their own on it.
	url string
	// migrationHooks are added to the database Migrate works on (crash tests kill the
	// process from one).
	migrationHooks []bun.QueryHook
	// serving is the embedded database's serving lock, once ClaimServing took it.
	serving *os.File
}

var _ usecases.Store = (*Store)(nil)

// DB returns the underlying bun database.
func (s *Store) DB() *bun.DB { return s.root }

// Tx returns the transaction a store handed to an InTx function works in, or nil.
func (s *Store) Tx() *bun.Tx { return s.tx }

// Close waits for consent batches in progress to commit and closes the database.
func (s *Store) Close() error {
	if s.ingest != nil {
		s.ingest.close()
	}
	err := s.root.Close()
	if s.listing != nil {
		err = errors.Join(err, s.listing.Close())
	}
	return errors.Join(err, s.releaseServing())
}

// Ping reports whether the database can write: it answers, and a write of one row
// (store_probe) commits. A read-only file or server, a full disk or a lost connection make it
// fail, with core's unavailable error; /readyz answers 503 then.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.root.NewInsert().Model(&storeProbe{ID: 1, At: time.Now().UTC()}).
		On("CONFLICT (id) DO UPDATE").Set("at = EXCLUDED.at").Exec(ctx)
	if err != nil {
		if core.IsUnavailable(err) {
			return err
		}
		return core.Wrap(core.CodeUnavailable, err, "database unreachable")
	}
	return nil
}

// storeProbe is the row Ping writes.
type storeProbe struct {
	bun.BaseModel `bun:"table:store_probe"`
	ID            int       `bun:"id,pk"`
	At            time.Time `bun:"at"`
}

// InTx runs fn in a transaction; inside one already, fn joins it.
func (s *Store) InTx(ctx context.Context, fn func(tx usecases.Store) error) error {
	if s.tx != nil {
		return fn(s)
	}
	return s.root.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(&Store{db: tx, root: s.root, tx: &tx})
	})
}

// SQLTx returns the database/sql transaction of a store handed to an InTx function, or nil,
// so that a job queue on the same database can insert its job in it.
func (s *Store) SQLTx() *sql.Tx {
	if s.tx == nil {
		return nil
	}
	return s.tx.Tx
}

// Option changes how Open opens a store.
type Option func(*options)

type options struct{ faults *Faults }

// Faults makes a store's database connections fail on demand, in tests (dbguard.Faults).
type Faults = dbguard.Faults

// WithFaults has the store's connections fail as f says (tests only; see Faults).
func WithFaults(f *Faults) Option { return func(o *options) { o.faults = f } }

// Open connects to the database named by a URL: sqlite://PATH (embedded, single node) or
// postgres://... (production). It does not migrate; call Migrate.
//
// Every error the database answers because it cannot serve now (connection lost, shut down,
// read-only, disk full, I/O error) reaches the use cases as core's unavailable error, and the
// connection that answered it is replaced (see dbguard): the store serves again as soon
// as the database does, without a restart.
func Open(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var (
		db  *bun.DB
		err error
	)
	switch {
	case strings.HasPrefix(databaseURL, "sqlite://"):
		db, err = openSQLite(ctx, strings.TrimPrefix(databaseURL, "sqlite://"), o.faults)
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		db, err = openPostgres(databaseURL, o.faults)
	default:
		return nil, fmt.Errorf("database url %q: must start with sqlite:// or postgres://", databaseURL)
	}
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	db = instrument(db)
	committers, batch := 1, 512 // SQLite has one writer at a time
	var listing *bun.DB
	if db.Dialect().Name().String() == "pg" {
		committers, batch = pgCommitters(runtime.GOMAXPROCS(0)), 256
		if !behindPooler(databaseURL) {
			if listing, err = openPostgresListing(databaseURL, o.faults); err != nil {
				db.Close()
				return nil, err
			}
			listing = instrument(listing)
		}
	}
	return &Store{db: db, root: db, listing: listing, ingest: newGroupCommit(db, committers, batch, databaseURL, o.faults), url: databaseURL}, nil
}

// Dialect names the database: "sqlite" or "postgres".
func (s *Store) Dialect() string {
	if s.root.Dialect().Name().String() == "pg" {
		return "postgres"
	}
	return "sqlite"
}

func orMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

func orSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// pgCommitters is how many committers a Postgres store runs on procs cores: one per two
// cores, at least one, at most four. Every batch pays Postgres's fixed cost of a batch (the
// executor's start, the heads' locks, the commit), and a committer's batch holds every record
// of its sites that waited, so committers that run side by side share the same load out in
// smaller batches. Where the cores are few, that costs more than the overlap gives: on two
// cores, the same 16 clients spread over four sites made 3,629-3,727 posts/s with four
// committers and 5,036-5,127 with one, as many as on one site (docs/consent-records.md,
// "Seventh look").
func pgCommitters(procs int) int { return min(4, max(1, procs/2)) }
