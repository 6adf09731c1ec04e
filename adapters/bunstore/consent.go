package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
)

type consentRecord struct {
	bun.BaseModel       `bun:"table:consent_records"`
	ID                  string            `bun:"id,pk"`
	SiteID              string            `bun:"site_id"`
	VisitorID           string            `bun:"visitor_id"`
	IPCountry           string            `bun:"ip_country"`
	Jurisdiction        string            `bun:"jurisdiction"`
	CategoriesConsented consentCategories `bun:"categories_consented,type:jsonb"`
	GPCSignal           bool              `bun:"gpc_signal"`
	DoNotSell           bool              `bun:"do_not_sell"`
	ConsentVersion      int               `bun:"consent_version"`
	Action              string            `bun:"action"`
	CreatedAt           time.Time         `bun:"created_at"`
	PageURL             string            `bun:"page_url"`
	UserAgent           string            `bun:"user_agent"`
	SnapshotHash        string            `bun:"snapshot_hash"`
	VisitorSalt         string            `bun:"visitor_salt"`
	VisitorHash         string            `bun:"visitor_hash"`
	RecordHash          string            `bun:"record_hash"`
	// BatchSeq is NULL only for a row written around the store (verification reports it).
	BatchSeq   *int64 `bun:"batch_seq"`
	BatchIndex int    `bun:"batch_index"`
	Region     string `bun:"region"`
	RegionRule string `bun:"region_rule"`
	TCString   string `bun:"tc_string"`
	ACString   string `bun:"ac_string"`
	GVLVersion int    `bun:"gvl_version"`
	GPPString  string `bun:"gpp_string"`
	Variant    string `bun:"variant"`
	// IdempotencyKey is the key the decision was posted with, NULL without one; unique per
	// site (consent_records_idempotency).
	IdempotencyKey *string `bun:"idempotency_key"`
}

// consentCount is one bucket of the consent_counts table: the number of records of a site
// created in one hour, as counted by one writer shard.
type consentCount struct {
	bun.BaseModel `bun:"table:consent_counts,alias:consent_counts"`
	SiteID        string    `bun:"site_id,pk"`
	Bucket        time.Time `bun:"bucket,pk"`
	Shard         int       `bun:"shard,pk"`
	// N counts the records stored (retention subtracts); the rest count decisions for the
	// statistics, which retention leaves alone.
	N         int64 `bun:"n"`
	Decisions int64 `bun:"decisions"`
	AcceptAll int64 `bun:"accept_all"`
	RejectAll int64 `bun:"reject_all"`
	Custom    int64 `bun:"custom"`
	GPC       int64 `bun:"gpc"`
	GDPR      int64 `bun:"gdpr"`
	CCPA      int64 `bun:"ccpa"`
	JurNone   int64 `bun:"jur_none"`
	GPCSignal int64 `bun:"gpc_signal"`
}

// consentBatch is one link of a site's chain.
type consentBatch struct {
	bun.BaseModel `bun:"table:consent_batches,alias:consent_batches"`
	SiteID        string    `bun:"site_id,pk"`
	Seq           int64     `bun:"seq,pk"`
	Hash          string    `bun:"hash"`
	PrevHash      string    `bun:"prev_hash"`
	Records       int       `bun:"records"`
	NewestAt      time.Time `bun:"newest_at"`
}

// consentChain is the head and anchor of a site's chain.
type consentChain struct {
	bun.BaseModel `bun:"table:consent_chains,alias:consent_chains"`
	SiteID        string `bun:"site_id,pk"`
	HeadSeq       int64  `bun:"head_seq"`
	HeadHash      string `bun:"head_hash"`
	AnchorSeq     int64  `bun:"anchor_seq"`
	AnchorHash    string `bun:"anchor_hash"`
}

// bucketOf is the hour bucket a record created at t is counted in.
func bucketOf(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

func fromConsent(r *consent.ConsentRecord) consentRecord {
	seq := r.BatchSeq
	return consentRecord{
		ID: r.ID, SiteID: r.SiteID, VisitorID: r.VisitorID, IPCountry: r.IPCountry, Jurisdiction: r.Jurisdiction,
		CategoriesConsented: consentCategories(orMap(r.CategoriesConsented)), GPCSignal: r.GPCSignal, DoNotSell: r.DoNotSell,
		ConsentVersion: r.ConsentVersion, Action: r.Action, CreatedAt: r.CreatedAt,
		PageURL: r.PageURL, UserAgent: r.UserAgent, SnapshotHash: r.SnapshotHash, VisitorSalt: r.VisitorSalt,
		VisitorHash: r.VisitorHash, RecordHash: r.RecordHash, BatchSeq: &seq, BatchIndex: r.BatchIndex,
		Region: r.Region, RegionRule: r.RegionRule, TCString: r.TCString, ACString: r.ACString, GVLVersion: r.GVLVersion, GPPString: r.GPPString,
		Variant: r.Variant, IdempotencyKey: keyOrNil(r.IdempotencyKey),
	}
}

func (m *consentRecord) core() *consent.ConsentRecord {
	seq := int64(-1) // a row written around the store
	if m.BatchSeq != nil {
		seq = *m.BatchSeq
	}
	r := &consent.ConsentRecord{
		ID: m.ID, SiteID: m.SiteID, VisitorID: m.VisitorID, IPCountry: m.IPCountry, Jurisdiction: m.Jurisdiction,
		CategoriesConsented: orMap(map[string]bool(m.CategoriesConsented)), GPCSignal: m.GPCSignal, DoNotSell: m.DoNotSell,
		ConsentVersion: m.ConsentVersion, Action: m.Action, CreatedAt: m.CreatedAt.UTC(),
		PageURL: m.PageURL, UserAgent: m.UserAgent, SnapshotHash: m.SnapshotHash, VisitorSalt: m.VisitorSalt,
		VisitorHash: m.VisitorHash, RecordHash: m.RecordHash, BatchSeq: seq, BatchIndex: m.BatchIndex,
		Region: m.Region, RegionRule: m.RegionRule, TCString: m.TCString, ACString: m.ACString, GVLVersion: m.GVLVersion, GPPString: m.GPPString,
		Variant: m.Variant,
	}
	if m.IdempotencyKey != nil {
		r.IdempotencyKey = *m.IdempotencyKey
	}
	return r
}

// insertConsents writes records, chains them and counts them, in db (a transaction). Each
// site's records in rs form one batch of its chain, in the order of rs: the site's chain head
// is locked (an upsert, so that a site's first batch needs no second statement), the batch
// hash computed on it, and the head moved on, so that concurrent transactions, in this
// process or another, extend a site's chain one after the other. Counting in the same
// transaction keeps every total and statistic exact. It returns the sites' new heads.
func insertConsents(ctx context.Context, db bun.IDB, shard int, rs []*consent.ConsentRecord) ([]consentChain, error) {
	bySite, heads := groupBySite(rs)
	for i := range heads {
		heads[i].HeadHash, heads[i].AnchorHash = core.GenesisHash, core.GenesisHash
	}
	if _, err := db.NewInsert().Model(&heads).On("CONFLICT (site_id) DO UPDATE").
		Set("head_seq = consent_chains.head_seq").Returning("site_id, head_seq, head_hash").Exec(ctx); err != nil {
		return nil, err
	}
	writes := consentWrites(db, shard, rs, bySite, heads)
	writes = append(writes, db.NewInsert().Model(&heads).On("CONFLICT (site_id) DO UPDATE").
		Set("head_seq = EXCLUDED.head_seq").Set("head_hash = EXCLUDED.head_hash"))
	return heads, execTogether(ctx, db, writes...)
}

// insertConsentsOnKnownHeads is insertConsents in one round trip, for Postgres, when the
// committer knows the sites' heads (its own last commits): no BEGIN, no head read, no COMMIT
// of their own. The statements go as one simple query, which Postgres runs as one implicit
// transaction, committed before the answer returns. Its first statements move each head on
// only if it is still the one known, and fail otherwise (errHeadMoved: another process or a
// write inside InTx extended the chain meanwhile), which rolls the whole batch back; the
// caller then goes the locking way. Moving a head takes its row lock as the upsert of
// insertConsents does, in the same order, so both ways serialize on it alike.
func insertConsentsOnKnownHeads(ctx context.Context, db bun.IDB, shard int, rs []*consent.ConsentRecord, known map[string]consentChain) ([]consentChain, error) {
	bySite, heads := groupBySite(rs)
	for i := range heads {
		heads[i] = known[heads[i].SiteID]
	}
	old := slices.Clone(heads)
	writes := consentWrites(db, shard, rs, bySite, heads)
	guards := make([]schema.QueryAppender, 0, len(heads)+len(writes))
	for i, h := range heads {
		// The ELSE branch depends on the count, so that the planner cannot fold it into a
		// constant error; when the head moved, it fails the statement and the transaction.
		guards = append(guards, db.NewRaw(`WITH moved AS (UPDATE consent_chains SET head_seq = ?, head_hash = ?
	WHERE site_id = ? AND head_seq = ? AND head_hash = ? RETURNING 1)
SELECT CASE WHEN count(*) = 1 THEN 0 ELSE (? || count(*))::int END FROM moved`,
			h.HeadSeq, h.HeadHash, h.SiteID, old[i].HeadSeq, old[i].HeadHash, headMovedMark))
	}
	for _, w := range writes {
		guards = append(guards, w)
	}
	err := execTogether(ctx, db, guards...)
	if err != nil && strings.Contains(err.Error(), headMovedMark) {
		return nil, errHeadMoved
	}
	return heads, err
}

// headMovedMark is the text of the error a moved head raises in insertConsentsOnKnownHeads.
const headMovedMark = "consentd: chain head moved "

var errHeadMoved = errors.New("consent chain head moved")

// groupBySite groups rs by site, and returns the sites, as chain heads to fill, in lock order:
// one order for every transaction, so that two of them never wait on each other's heads.
func groupBySite(rs []*consent.ConsentRecord) (map[string][]*consent.ConsentRecord, []consentChain) {
	bySite := map[string][]*consent.ConsentRecord{}
	for _, r := range rs {
		bySite[r.SiteID] = append(bySite[r.SiteID], r)
	}
	heads := make([]consentChain, 0, len(bySite))
	for site := range bySite {
		heads = append(heads, consentChain{SiteID: site})
	}
	slices.SortFunc(heads, func(a, b consentChain) int { return strings.Compare(a.SiteID, b.SiteID) })
	return bySite, heads
}

// batchRows are the rows a batch writes: each site's chain link, the records, and the hour
// counters of the records stored (n, the listing's exact totals). The statistics' counters
// are not written here since #46: core/analytics counts the decisions after the commit and
// flushes them every second, outside the records' transactions (docs/consent-records.md).
type batchRows struct {
	batches []consentBatch
	records []consentRecord
	counts  []consentCount
}

// consentWrites chains each site's records after its head in heads, moves the heads on, and
// returns the writes of the batch rows, the records and the counters.
func consentWrites(db bun.IDB, shard int, rs []*consent.ConsentRecord, bySite map[string][]*consent.ConsentRecord, heads []consentChain) []schema.QueryAppender {
	w := chainRows(shard, rs, bySite, heads)
	return []schema.QueryAppender{
		db.NewInsert().Model(&w.batches),
		consentInsert(w.records),
		db.NewInsert().Model(&w.counts).Column("site_id", "bucket", "shard", "n").
			On("CONFLICT (site_id, bucket, shard) DO UPDATE").Set("n = consent_counts.n + EXCLUDED.n"),
	}
}

// chainRows chains each site's records after its head in heads, moves the heads on, and
// returns the rows the batch writes.
func chainRows(shard int, rs []*consent.ConsentRecord, bySite map[string][]*consent.ConsentRecord, heads []consentChain) batchRows {
	batches := make([]consentBatch, 0, len(heads))
	for i := range heads {
		h := &heads[i]
		recs := bySite[h.SiteID]
		hash := consent.ChainConsentBatch(h.HeadSeq, h.HeadHash, recs)
		h.HeadSeq, h.HeadHash = h.HeadSeq+1, hash
		batches = append(batches, consentBatch{SiteID: h.SiteID, Seq: h.HeadSeq, Hash: hash, PrevHash: recs[0].PrevBatchHash,
			Records: len(recs), NewestAt: newestOf(recs)})
	}
	w := recordRows(shard, rs) // after chaining, which sets the records' batch fields
	w.batches = batches
	return w
}

// recordRows are the records' rows of a batch and their hour counters (counted by shard),
// without the chain links.
func recordRows(shard int, rs []*consent.ConsentRecord) batchRows {
	w := batchRows{records: make([]consentRecord, len(rs))}
	for i, r := range rs {
		w.records[i] = fromConsent(r)
	}
	w.countRows(shard, rs)
	return w
}

// newestOf is the createdAt of the newest of recs (not empty).
func newestOf(recs []*consent.ConsentRecord) time.Time {
	newest := recs[0].CreatedAt
	for _, r := range recs {
		if r.CreatedAt.After(newest) {
			newest = r.CreatedAt
		}
	}
	return newest
}

// countRows fills the hour counters of rs: the records per site and hour, which keep the
// listing's totals exact (the statistics are core/analytics's, counted after the commit).
func (w *batchRows) countRows(shard int, rs []*consent.ConsentRecord) {
	type key struct {
		site   string
		bucket time.Time
	}
	counts := map[key]int{}
	for _, r := range rs {
		k := key{r.SiteID, bucketOf(r.CreatedAt)}
		j, ok := counts[k]
		if !ok {
			j = len(w.counts)
			counts[k] = j
			w.counts = append(w.counts, consentCount{SiteID: k.site, Bucket: k.bucket, Shard: shard})
		}
		w.counts[j].N++
	}
}

// execTogether sends the statements in one round trip: bun renders each with its values
// inlined, and a statement without arguments goes by the simple query protocol on Postgres
// (and through sqlite3_exec semantics on SQLite), which both take several statements at once.
// A consent batch thus costs four round trips (begin, head lock, writes, commit) however many
// tables it touches, or one on Postgres when the committer knows the head
// (insertConsentsOnKnownHeads); under CPU contention each round trip costs a scheduling delay.
func execTogether(ctx context.Context, db bun.IDB, qs ...schema.QueryAppender) error {
	var sql []byte
	gen := db.NewRaw("").DB().QueryGen()
	for i, q := range qs {
		if i > 0 {
			sql = append(sql, ";\n"...)
		}
		var err error
		if sql, err = q.AppendQuery(gen, sql); err != nil {
			return err
		}
	}
	if tx, ok := db.(bun.Tx); ok {
		_, err := tx.Tx.ExecContext(ctx, string(sql))
		return err
	}
	_, err := db.ExecContext(ctx, string(sql))
	return err
}

// translateConsent translates an insert error; a missing site (a foreign key violation) is
// reported as the site the caller named.
func translateConsent(err error) error {
	err = translate(err, "consent record")
	if core.IsNotFound(err) {
		return core.Wrap(core.CodeNotFound, err, "site not found")
	}
	return err
}

// CreateConsentRecord implements core.ConsentStore. Outside a transaction the record goes
// through the store's group commit: concurrent calls are written together in one transaction,
// and each returns only after that transaction has committed (or failed). Inside InTx it is
// written in the caller's transaction.
func (s *Store) CreateConsentRecord(ctx context.Context, r *consent.ConsentRecord) error {
	if err := newID("consent record", r.ID); err != nil {
		return err
	}
	if err := findIDs("site", r.SiteID); err != nil {
		return err
	}
	if err := storable("consent record", r); err != nil {
		return err
	}
	if s.tx != nil || s.ingest == nil {
		return s.InTx(ctx, func(tx usecases.Store) error {
			_, err := insertConsents(ctx, tx.(*Store).db, 0, []*consent.ConsentRecord{r})
			return translateConsent(err)
		})
	}
	return s.ingest.submit(ctx, r)
}

// ConsentRecords implements core.ConsentStore. The page walks the (site_id, created_at DESC,
// id DESC) index and reads only offset+limit entries; the total comes from consent_counts
// (see consentTotal), so neither reads the site's whole history.
func (s *Store) ConsentRecords(ctx context.Context, q consent.ConsentQuery) ([]*consent.ConsentRecord, int, error) {
	if !isID(q.SiteID) {
		return []*consent.ConsentRecord{}, 0, nil
	}
	total, err := s.consentTotal(ctx, q)
	if err != nil {
		return nil, 0, translate(err, "consent record")
	}
	var ms []consentRecord
	err = s.listingRead(ctx, func(ctx context.Context, db bun.IDB) error {
		return consentPage(db, q, &ms).Scan(ctx)
	})
	if err != nil {
		return nil, 0, translate(err, "consent record")
	}
	out := make([]*consent.ConsentRecord, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, int(total), nil
}

// consentPage is the query of a listing's page: newest first, offset+limit entries of the
// (site_id, created_at DESC, id DESC) index, or of (site_id, visitor_id, created_at DESC, id
// DESC) for a visitor's records.
func consentPage(db bun.IDB, q consent.ConsentQuery, ms *[]consentRecord) *bun.SelectQuery {
	sq := consentFilter(db.NewSelect().Model(ms), q)
	if q.After != nil {
		sq = sq.Where("(created_at, id) < (?, ?)", q.After.CreatedAt.UTC(), q.After.ID)
	}
	return sq.OrderExpr("created_at DESC, id DESC").
		Limit(int64(q.Limit)).Offset(int64(q.Page-1) * int64(q.Limit))
}

// listingRead runs read, the query of a listing's page, so that it walks an index in the
// listing's order and stops after the page, whatever Postgres's statistics say. Postgres plans
// from a table's statistics, and they lag behind a table or a site that grows: on a new
// database under ingest load (no ANALYZE yet), and for a site newly added to a large table (its
// site_id absent from the statistics until autovacuum analyzes the table again, after a tenth
// of the table has changed), Postgres estimated a site's page 1 at a few rows and read it as a
// bitmap scan of every record of the site by (site_id, …) of another index, then a sort: the
// site's whole history for 50 records (10-23 ms per page 1 on a new database after a few
// seconds of ingest, growing with the site, and a fifth of Postgres's CPU under
// consentd-load). With sorting disabled for the read (the listing pool's sessions start with
// enable_sort = off: openPostgresListing), the only plan that gives the order is the ordered
// index scan that stops after the page, and the page costs one round trip. Behind a pooler
// (a database URL that sets default_query_exec_mode), which may refuse a startup parameter or
// hand a session's setting to other clients, the read runs in a read-only transaction of the
// main pool with SET LOCAL instead: three round trips more. Inside a transaction (InTx) the
// read runs as it is, in the transaction. SQLite picks the ordered index by itself
// (TestConsentPageWithoutStatistics).
func (s *Store) listingRead(ctx context.Context, read func(ctx context.Context, db bun.IDB) error) error {
	switch {
	case s.tx != nil || s.Dialect() != "postgres":
		return read(ctx, s.db)
	case s.listing != nil:
		return read(ctx, s.listing)
	}
	return s.db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_sort = off"); err != nil {
			return err
		}
		return read(ctx, tx)
	})
}

func consentFilter(sq *bun.SelectQuery, q consent.ConsentQuery) *bun.SelectQuery {
	sq = sq.Where("site_id = ?", q.SiteID)
	if q.VisitorID != "" {
		sq = sq.Where("visitor_id = ?", q.VisitorID)
	}
	if q.From != nil {
		sq = sq.Where("created_at > ?", q.From.UTC())
	}
	if q.To != nil {
		sq = sq.Where("created_at < ?", q.To.UTC())
	}
	return sq
}

// consentTotal is the exact number of records matching q. Hour buckets wholly inside the
// (exclusive) range [from, to] are summed from consent_counts; only the records of the partial
// hours at either edge are counted through the index. The cost is one bucket row per hour of
// history plus at most two hours of records, whatever the site's size.
func (s *Store) consentTotal(ctx context.Context, q consent.ConsentQuery) (int64, error) {
	if q.VisitorID != "" {
		// A visitor's records are few and found through (site_id, visitor_id): count them.
		n, err := consentFilter(s.db.NewSelect().Model((*consentRecord)(nil)), q).Count(ctx)
		return int64(n), err
	}
	// Buckets [lo, hi) are wholly inside; lo and hi are nil when the range is open.
	var lo, hi *time.Time
	if q.From != nil {
		t := bucketOf(*q.From).Add(time.Hour) // the bucket holding from itself is partial
		lo = &t
	}
	if q.To != nil {
		t := bucketOf(*q.To)
		hi = &t
	}
	if lo != nil && hi != nil && !lo.Before(*hi) {
		// No whole bucket: count the range directly; it spans less than two hours.
		n, err := consentFilter(s.db.NewSelect().Model((*consentRecord)(nil)), q).Count(ctx)
		return int64(n), err
	}
	var total int64
	bq := s.db.NewSelect().Model((*consentCount)(nil)).ColumnExpr("COALESCE(CAST(SUM(n) AS BIGINT), 0)").
		Where("site_id = ?", q.SiteID)
	if lo != nil {
		bq = bq.Where("bucket >= ?", *lo)
	}
	if hi != nil {
		bq = bq.Where("bucket < ?", *hi)
	}
	if err := bq.Scan(ctx, &total); err != nil {
		return 0, err
	}
	if lo != nil {
		n, err := consentFilter(s.db.NewSelect().Model((*consentRecord)(nil)), q).Where("created_at < ?", *lo).Count(ctx)
		if err != nil {
			return 0, err
		}
		total += int64(n)
	}
	if hi != nil {
		n, err := consentFilter(s.db.NewSelect().Model((*consentRecord)(nil)), q).Where("created_at >= ?", *hi).Count(ctx)
		if err != nil {
			return 0, err
		}
		total += int64(n)
	}
	return total, nil
}

// exportBatch is how many records EachConsentRecord reads per query.
const exportBatch = 1000

// EachConsentRecord implements core.ConsentStore. It reads keyset pages of exportBatch records
// along the listing index, each a short query of its own (through listingRead, so that each
// walks the index whatever the statistics say), so an export of any size holds one page in
// memory and no long-running transaction.
func (s *Store) EachConsentRecord(ctx context.Context, q consent.ConsentQuery, fn func(*consent.ConsentRecord) error) error {
	if !isID(q.SiteID) {
		return nil
	}
	page := q
	page.Page, page.Limit, page.After = 1, exportBatch, nil
	for {
		var ms []consentRecord
		err := s.listingRead(ctx, func(ctx context.Context, db bun.IDB) error {
			return consentPage(db, page, &ms).Scan(ctx)
		})
		if err != nil {
			return translate(err, "consent record")
		}
		links, err := s.batchLinks(ctx, q.SiteID, ms)
		if err != nil {
			return err
		}
		for i := range ms {
			r := ms[i].core()
			if b, ok := links[r.BatchSeq]; ok {
				r.BatchHash, r.PrevBatchHash = b.Hash, b.PrevHash
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(ms) < exportBatch {
			return nil
		}
		last := ms[len(ms)-1]
		page.After = &consent.ConsentKey{CreatedAt: last.CreatedAt, ID: last.ID}
	}
}
