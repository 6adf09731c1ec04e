package bunstore

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// groupCommit batches concurrent consent inserts into shared transactions. Each committer
// goroutine takes one waiting request, then every other request already waiting (up to
// maxBatch), and commits them together: under load a batch costs one commit (one WAL flush)
// instead of one per record, and a lone request is written at once, without waiting for
// company. Each committer counts into its own shard of consent_counts, so committers never
// wait on each other's counter rows.
type groupCommit struct {
	db *bun.DB
	// reqs has one channel per committer; a site's records always go to the same one, so
	// that in one process a site's chain is extended by one committer, whose batches grow
	// under load instead of waiting on another committer's lock of the site's chain head.
	reqs     []chan *consentReq
	seed     maphash.Seed
	quit     chan struct{}
	stop     sync.Once
	wg       sync.WaitGroup
	maxBatch int
	// pg holds each committer's own Postgres connection for batches on known heads (nil
	// entries on SQLite, or when the database URL sets its own query mode).
	pg []*pgIngest
}

type consentReq struct {
	ctx  context.Context
	r    *consent.ConsentRecord
	done chan error
}

// errClosed answers requests made after Close.
var errClosed = errors.New("store closed")

// newGroupCommit starts committers goroutines writing batches of at most maxBatch records.
// On Postgres, pgURL (the database URL) gives each committer a connection of its own for
// the batches it writes on known heads (pgIngest); "" keeps every batch on db.
func newGroupCommit(db *bun.DB, committers, maxBatch int, pgURL string, faults *dbguard.Faults) *groupCommit {
	g := &groupCommit{db: db, quit: make(chan struct{}), maxBatch: maxBatch, seed: maphash.MakeSeed()}
	for i := range committers {
		ch := make(chan *consentReq)
		g.reqs = append(g.reqs, ch)
		var pg *pgIngest
		if db.Dialect().Name() == dialect.PG {
			pg = newPGIngest(pgURL, faults)
		}
		g.pg = append(g.pg, pg)
		g.wg.Add(1)
		go g.run(i+1, ch, pg) // shard 0 is for writes inside InTx, migrated counts and retention
	}
	return g
}

func (g *groupCommit) submit(ctx context.Context, r *consent.ConsentRecord) error {
	req := &consentReq{ctx: ctx, r: r, done: make(chan error, 1)}
	select {
	case g.reqs[maphash.String(g.seed, r.SiteID)%uint64(len(g.reqs))] <- req:
	case <-g.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once taken, the request is answered only by its transaction's outcome: the caller must
	// not report success or failure before knowing it.
	return <-req.done
}

// close stops the committers after the batches in progress; later submissions fail.
func (g *groupCommit) close() {
	g.stop.Do(func() { close(g.quit) })
	g.wg.Wait()
	for _, pg := range g.pg {
		pg.close()
	}
}

func (g *groupCommit) run(shard int, reqs chan *consentReq, pg *pgIngest) {
	defer g.wg.Done()
	batch := make([]*consentReq, 0, g.maxBatch)
	heads := knownHeads{}
	for {
		batch = batch[:0]
		select {
		case req := <-reqs:
			batch = append(batch, req)
		case <-g.quit:
			return
		}
	drain:
		for len(batch) < g.maxBatch {
			select {
			case req := <-reqs:
				batch = append(batch, req)
			default:
				break drain
			}
		}
		g.commit(shard, batch, heads, pg)
	}
}

// knownHeads are the chain heads a committer wrote last, per site, with the time another
// writer was last seen moving the site's head (then the site goes the locking way for a
// while, rather than failing a guess on every batch).
type knownHeads map[string]knownHead

type knownHead struct {
	head   consentChain
	shared time.Time
}

// sharedFor is how long a site whose head another writer moved is written the locking way.
const sharedFor = time.Minute

// get returns the known heads of the sites of rs, or false when one is unknown or shared.
func (k knownHeads) get(rs []*consent.ConsentRecord) (map[string]consentChain, bool) {
	out := make(map[string]consentChain, 1)
	for _, r := range rs {
		if _, ok := out[r.SiteID]; ok {
			continue
		}
		h, ok := k[r.SiteID]
		if !ok || h.head.SiteID == "" || time.Since(h.shared) < sharedFor {
			return nil, false
		}
		out[r.SiteID] = h.head
	}
	return out, true
}

func (k knownHeads) set(heads []consentChain) {
	if len(k) > 10000 { // bounded by the sites written lately
		clear(k)
	}
	for _, h := range heads {
		e := k[h.SiteID]
		e.head = h
		k[h.SiteID] = e
	}
}

// forget drops the heads of the sites of rs; moved marks them shared.
func (k knownHeads) forget(rs []*consent.ConsentRecord, moved bool) {
	for _, r := range rs {
		if moved {
			k[r.SiteID] = knownHead{shared: time.Now()}
		} else {
			delete(k, r.SiteID)
		}
	}
}

// commit writes a batch in one transaction. If it fails, each record is retried alone so that
// one bad record (its site deleted meanwhile) fails only its own request. On Postgres with
// pg, every batch goes in one round trip on the committer's own connection, chained in the
// database (pgIngest.write). Without pg (a database URL that sets its own query mode), a batch
// whose sites' heads the committer wrote last goes in one round trip on the pool
// (insertConsentsOnKnownHeads); if another writer moved a head meanwhile, the batch is
// written the locking way instead.
func (g *groupCommit) commit(shard int, batch []*consentReq, known knownHeads, pg *pgIngest) {
	live := batch[:0]
	for _, req := range batch {
		if err := req.ctx.Err(); err != nil {
			req.done <- err // the client is gone; nothing was written
			continue
		}
		live = append(live, req)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	postgres := g.db.Dialect().Name() == dialect.PG
	write := func(reqs []*consentReq) error {
		rs := make([]*consent.ConsentRecord, len(reqs))
		for i, req := range reqs {
			rs[i] = req.r
		}
		if postgres && pg != nil {
			return pg.write(ctx, shard, rs)
		}
		if h, ok := known.get(rs); ok && postgres {
			heads, err := insertConsentsOnKnownHeads(ctx, g.db, shard, rs, h)
			if err == nil {
				known.set(heads)
				return nil
			}
			known.forget(rs, errors.Is(err, errHeadMoved))
			if !errors.Is(err, errHeadMoved) {
				return err
			}
		}
		var heads []consentChain
		err := g.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var err error
			heads, err = insertConsents(ctx, tx, shard, rs)
			return err
		})
		if err != nil {
			known.forget(rs, false)
			return err
		}
		known.set(heads)
		return nil
	}
	err := write(live)
	if err != nil && core.IsUnavailable(dbguard.Unavailable(err)) {
		// The database went away, perhaps after committing the batch and before answering:
		// the records' IDs say whether it did (the batch is one transaction). Retrying each
		// record alone would only fail again, slowly.
		if ok, cerr := g.committed(ctx, live); cerr == nil && ok {
			err = nil
		}
		for _, req := range live {
			req.done <- translateConsent(err)
		}
		return
	}
	if err == nil || len(live) == 1 {
		for _, req := range live {
			req.done <- translateConsent(err)
		}
		return
	}
	for _, req := range live {
		req.done <- translateConsent(write([]*consentReq{req}))
	}
}

// committed reports whether the records of reqs are stored: after a batch whose commit lost
// its answer, it tells a committed batch from one that was not.
func (g *groupCommit) committed(ctx context.Context, reqs []*consentReq) (bool, error) {
	ids := make([]string, len(reqs))
	for i, req := range reqs {
		ids[i] = req.r.ID
	}
	n, err := g.db.NewSelect().Table("consent_records").Where("id IN (?)", bun.In(ids)).Count(ctx)
	return int(n) == len(ids), err
}
