package bunstore

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core/consent"
)

// pgIngest is a committer's own Postgres connection for the batches it writes on known heads
// (insertConsentsOnKnownHeads). The store's pool talks the simple protocol, with every value
// written into the SQL text (bun's way), so Postgres parses and plans a batch's seven
// statements, with every record's 25 values as literals, on every batch: under ingest load
// that was most of Postgres's CPU per record, and a batch's time on the committer's critical
// path. This connection prepares the statements once (pgx's statement cache), sends the
// rows as arrays (one parameter per column, whatever the batch size, so one plan serves
// every batch) in binary, and sends the whole batch as one pipeline ending in one Sync:
// Postgres runs it as one implicit transaction and commits before it answers, exactly as
// the simple query did. BenchmarkConsentBatchPostgres measures both ways.
type pgIngest struct {
	cfg  *pgx.ConnConfig
	conn *pgx.Conn
	// faults, in tests, loses the answers of commits as the pool's driver layer does.
	faults *dbguard.Faults
}

// newPGIngest returns the connection holder for a committer, or nil when the database URL
// chooses its own query mode (default_query_exec_mode, e.g. behind a pooler that cannot
// keep prepared statements): then batches go the simple-protocol way.
func newPGIngest(dsn string, faults *dbguard.Faults) *pgIngest {
	if dsn == "" || strings.Contains(dsn, "default_query_exec_mode") {
		return nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	return &pgIngest{cfg: cfg, faults: faults}
}

// get returns the connection, (re)connecting when there is none or it was closed (a failed
// or cancelled batch closes it).
func (p *pgIngest) get(ctx context.Context) (*pgx.Conn, error) {
	if p.conn != nil && !p.conn.IsClosed() {
		return p.conn, nil
	}
	conn, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		return nil, err
	}
	p.conn = conn
	return conn, nil
}

func (p *pgIngest) close() {
	if p != nil && p.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.conn.Close(ctx)
	}
}

// write is insertConsentsOnKnownHeads on the committer's connection: the same statements in
// the same order (head guards, batch rows, records, counters), the same outcome.
func (p *pgIngest) write(ctx context.Context, shard int, rs []*consent.ConsentRecord, known map[string]consentChain) (_ []consentChain, err error) {
	// The pool's queries get a span and an error count from instrument's hooks; this
	// connection is not bun's, so it says the same itself.
	ctx, span := otel.Tracer("github.com/consentd/consentd/adapters/bunstore").Start(ctx, "consent batch",
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.Int("consentd.records", len(rs))))
	defer func() {
		if err != nil {
			storeErrors.WithLabelValues("INSERT").Inc()
			span.RecordError(err)
			span.SetStatus(codes.Error, "consent batch failed")
		}
		span.End()
	}()
	bySite, heads := groupBySite(rs)
	for i := range heads {
		heads[i] = known[heads[i].SiteID]
	}
	old := slices.Clone(heads)
	w := chainRows(shard, rs, bySite, heads)
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(heads)+6)}
	for i, h := range heads {
		b.Queue(pgGuard, h.HeadSeq, h.HeadHash, h.SiteID, old[i].HeadSeq, old[i].HeadHash)
	}
	if err := w.queue(b); err != nil {
		return nil, err
	}
	conn, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	br := conn.SendBatch(ctx, b)
	for range b.QueuedQueries {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil && strings.Contains(err.Error(), headMovedMark) {
		return nil, errHeadMoved
	}
	if err != nil {
		return nil, err
	}
	if err := p.faults.AfterCommit(); err != nil {
		_ = conn.Close(ctx) // the answer was lost with the connection
		return nil, err
	}
	return heads, nil
}

// pgGuard moves a site's head on only if it is still the one known (see
// insertConsentsOnKnownHeads); the ELSE branch depends on the count, so that it fails the
// statement, and the batch's transaction, exactly when the head moved.
const pgGuard = `WITH moved AS (UPDATE consent_chains SET head_seq = $1, head_hash = $2
	WHERE site_id = $3::uuid AND head_seq = $4 AND head_hash = $5 RETURNING 1)
SELECT CASE WHEN count(*) = 1 THEN 0 ELSE ('` + headMovedMark + `' || count(*))::int END FROM moved`

const pgInsertBatches = `INSERT INTO consent_batches (site_id, seq, hash, prev_hash, records, newest_at)
SELECT site_id::uuid, seq, hash, prev_hash, records, newest_at
FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::int4[], $6::timestamptz[])
	AS u(site_id, seq, hash, prev_hash, records, newest_at)`

const pgInsertRecords = `INSERT INTO consent_records (id, site_id, visitor_id, ip_country, jurisdiction,
	categories_consented, gpc_signal, do_not_sell, consent_version, action, created_at, page_url, user_agent,
	snapshot_hash, visitor_salt, visitor_hash, record_hash, batch_seq, batch_index, region, region_rule,
	tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant)
SELECT id::uuid, site_id::uuid, visitor_id, ip_country, jurisdiction, cats::jsonb, gpc_signal, do_not_sell,
	consent_version, action, created_at, page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash,
	record_hash, batch_seq, batch_index, region, region_rule, tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bool[], $8::bool[],
	$9::int4[], $10::text[], $11::timestamptz[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
	$17::text[], $18::int8[], $19::int4[], $20::text[], $21::text[], $22::text[], $23::text[], $24::int4[], $25::text[],
	$26::text[], $27::text[])
	AS u(id, site_id, visitor_id, ip_country, jurisdiction, cats, gpc_signal, do_not_sell, consent_version, action,
	created_at, page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash, record_hash, batch_seq,
	batch_index, region, region_rule, tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant)`

// pgUpsertCounts adds the batch's records to the hour counters of the listing's totals (n):
// the statistics' counters are core/analytics' since #46, outside this transaction.
const pgUpsertCounts = `INSERT INTO consent_counts AS c (site_id, bucket, shard, n)
SELECT site_id::uuid, bucket, shard, n FROM unnest($1::text[], $2::timestamptz[], $3::int2[], $4::int8[]) AS u(site_id, bucket, shard, n)
ON CONFLICT (site_id, bucket, shard) DO UPDATE SET n = c.n + EXCLUDED.n`

// queue adds the batch's writes to b, as columns.
func (w batchRows) queue(b *pgx.Batch) error {
	n := len(w.batches)
	site, seq, hash, prev, recs, newest := make([]string, n), make([]int64, n), make([]string, n), make([]string, n), make([]int32, n), make([]time.Time, n)
	for i, x := range w.batches {
		site[i], seq[i], hash[i], prev[i], recs[i], newest[i] = x.SiteID, x.Seq, x.Hash, x.PrevHash, int32(x.Records), x.NewestAt
	}
	b.Queue(pgInsertBatches, site, seq, hash, prev, recs, newest)

	n = len(w.records)
	var (
		id, siteID, visitor, country, jur, cats, action     = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		pageURL, ua, snap, salt, vhash, rhash, region, rule = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		tc, ac, gpp, variant                                = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		gpc, dns                                            = make([]bool, n), make([]bool, n)
		version, index, gvl                                 = make([]int32, n), make([]int32, n), make([]int32, n)
		created                                             = make([]time.Time, n)
		batchSeq                                            = make([]*int64, n)
		keys                                                = make([]*string, n)
	)
	for i := range w.records {
		r := &w.records[i]
		id[i], siteID[i], visitor[i], country[i], jur[i], action[i] = r.ID, r.SiteID, r.VisitorID, r.IPCountry, r.Jurisdiction, r.Action
		v, err := r.CategoriesConsented.Value()
		if err != nil {
			return err
		}
		cats[i] = v.(string)
		pageURL[i], ua[i], snap[i], salt[i], vhash[i], rhash[i] = r.PageURL, r.UserAgent, r.SnapshotHash, r.VisitorSalt, r.VisitorHash, r.RecordHash
		region[i], rule[i], tc[i], ac[i], gpp[i], variant[i] = r.Region, r.RegionRule, r.TCString, r.ACString, r.GPPString, r.Variant
		gpc[i], dns[i] = r.GPCSignal, r.DoNotSell
		version[i], index[i], gvl[i] = int32(r.ConsentVersion), int32(r.BatchIndex), int32(r.GVLVersion)
		created[i], batchSeq[i], keys[i] = r.CreatedAt, r.BatchSeq, r.IdempotencyKey
	}
	b.Queue(pgInsertRecords, id, siteID, visitor, country, jur, cats, gpc, dns, version, action, created, pageURL, ua,
		snap, salt, vhash, rhash, batchSeq, index, region, rule, tc, ac, gvl, gpp, keys, variant)

	n = len(w.counts)
	csite, bucket, shard, cn := make([]string, n), make([]time.Time, n), make([]int16, n), make([]int64, n)
	for i, c := range w.counts {
		csite[i], bucket[i], shard[i], cn[i] = c.SiteID, c.Bucket, int16(c.Shard), c.N
	}
	b.Queue(pgUpsertCounts, csite, bucket, shard, cn)
	return nil
}
