package bunstore

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
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
// the simple query did (docs/consent-records.md has the figures).
type pgIngest struct {
	cfg  *pgx.ConnConfig
	conn *pgx.Conn
	// faults, in tests, loses the answers of commits as the pool's driver layer does.
	faults *dbguard.Faults
	// chained are the sites known to have a chain row (written by this connection before).
	chained map[string]bool
}

// newPGIngest returns the connection holder for a committer, or nil behind a pooler
// (behindPooler: the URL chooses its own query mode, and a pooled session cannot keep
// prepared statements): then batches go the simple-protocol way.
func newPGIngest(dsn string, faults *dbguard.Faults) *pgIngest {
	if dsn == "" || behindPooler(dsn) {
		return nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	return &pgIngest{cfg: cfg, faults: faults, chained: map[string]bool{}}
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

// write commits rs on the committer's connection in one round trip, chaining each site's
// records in the database: one statement (pgWriteBatch) locks the sites' heads in site order
// and moves each on, computing the batch hash from the head it finds (SHA-256 in SQL, the same
// bytes as consent.ConsentBatchHash), and the batch rows and the records take their sequence
// number from the moved heads. The head's row lock is therefore held only while Postgres runs the
// batch and commits it, never across a round trip to this process, and no head has to be
// known or guessed: several processes extending one site's chain take turns at the lock
// without failing or retrying a batch (docs/consent-records.md, "Batches and the chain").
// The records get their batch fields from what the statements return.
func (p *pgIngest) write(ctx context.Context, shard int, rs []*consent.ConsentRecord) (err error) {
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
	if err := fitsPostgres(rs); err != nil {
		return err
	}
	bySite, heads := groupBySite(rs)
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(heads)+1)}
	for _, h := range heads {
		if !p.chained[h.SiteID] {
			b.Queue(pgEnsureChain, h.SiteID, core.GenesisHash)
		}
		for i, r := range bySite[h.SiteID] {
			r.BatchIndex = i
		}
	}
	if err := recordRows(shard, rs).queue(b, heads, bySite); err != nil {
		return err
	}
	conn, err := p.get(ctx)
	if err != nil {
		return err
	}
	br := conn.SendBatch(ctx, b)
	for range len(b.QueuedQueries) - 1 { // the chain rows; pgWriteBatch, queued last, answers the heads
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		err = scanHeads(br, heads)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := p.faults.AfterCommit(); err != nil {
		_ = conn.Close(ctx) // the answer was lost with the connection
		return err
	}
	if len(p.chained) > 10000 { // bounded by the sites written lately
		clear(p.chained)
	}
	for _, h := range heads {
		p.chained[h.SiteID] = true
		for _, r := range bySite[h.SiteID] {
			r.BatchSeq, r.BatchHash, r.PrevBatchHash = h.HeadSeq, h.HeadHash, h.AnchorHash
		}
	}
	return nil
}

// scanHeads reads pgWriteBatch's answer into heads: each site's moved head, the previous head
// in AnchorHash.
func scanHeads(br pgx.BatchResults, heads []consentChain) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	bySite := make(map[string]*consentChain, len(heads))
	for i := range heads {
		bySite[heads[i].SiteID] = &heads[i]
	}
	n := 0
	for rows.Next() {
		var site string
		var moved consentChain
		if err := rows.Scan(&site, &moved.HeadSeq, &moved.HeadHash, &moved.AnchorHash); err != nil {
			return err
		}
		h := bySite[site]
		if h == nil {
			return fmt.Errorf("consent batch: the database moved the head of site %s, not in the batch", site)
		}
		h.HeadSeq, h.HeadHash, h.AnchorHash = moved.HeadSeq, moved.HeadHash, moved.AnchorHash
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != len(heads) {
		return fmt.Errorf("consent batch: the database moved %d heads, want %d", n, len(heads))
	}
	return nil
}

// fitsPostgres refuses, as validation_error, values that the pool's text SQL would have
// Postgres refuse but that binary parameters would carry silently: a number beyond int4
// (truncated by the conversion) or a time outside years 1 to 9999 (binary timestamps reach
// 4713 BC). One such record fails the batch; each record is then written alone, so that only
// its own request fails.
func fitsPostgres(rs []*consent.ConsentRecord) error {
	for _, r := range rs {
		for _, n := range []int{r.ConsentVersion, r.GVLVersion} {
			if n < math.MinInt32 || n > math.MaxInt32 {
				return core.Errorf(core.CodeInvalid, "consent record: a number is out of range")
			}
		}
		if y := r.CreatedAt.UTC().Year(); y < 1 || y > 9999 {
			return core.Errorf(core.CodeInvalid, "consent record: createdAt is out of range")
		}
	}
	return nil
}

// pgEnsureChain gives a site its chain row before its first batch (a no-op, without a lock,
// when it has one).
const pgEnsureChain = `INSERT INTO consent_chains (site_id, head_seq, head_hash, anchor_seq, anchor_hash, prev_hash)
VALUES ($1::uuid, 0, $2, 0, $2, '') ON CONFLICT (site_id) DO NOTHING`

// pgWriteBatch writes a batch in one statement. Its CTEs: heads are the batch's sites, in
// lock order, each with its records' hashes (each followed by a newline), its number of
// records and its newest record's time ($1-$4); locked takes the sites' head rows in that
// order (the Sort under LockRows: two writers with overlapping sites never wait on each
// other in a cycle); moved moves each head on by one batch, batchHash = SHA-256 of
// prevBatchHash + "\n" + the hashes (consent.ConsentBatchHash), from the head as the last
// writer committed it; then the batch rows, the records ($5-$30, as columns) and the hour
// counters of the listing's totals ($31-$34; the statistics' counters are core/analytics'
// since #46, outside this transaction) take their sequence numbers from moved. The statement
// returns each site's moved head; a site without a chain row (deleted meanwhile) fails it,
// and with it the batch.
//
// One statement, not one per table: each statement of a pipeline costs Postgres a portal, an
// executor start and end and, with array parameters, a plan (the custom plan was chosen on
// every execution, a profile showed), all in the ingest's critical path: the committer waits
// for the answer before it writes its next batch. One statement: 0.69 → 0.61 ms per batch of
// 8 records, 1.00 → 0.87 ms for 16 (0.29 → 0.33 ms for a lone record);
// BenchmarkConsentBatchPostgres, alternating builds.
//
// The site IDs go as text[] cast to uuid[] in the statement: pgx cannot encode a []string as a
// binary uuid[], and on failing it formats the whole array into an error message (%#v) before
// it falls back to the text format; that was about a tenth of the server's CPU under ingest
// load (TestPGWriteBatchParamsEncodeInBinary keeps every parameter binary).
const pgWriteBatch = `WITH heads AS (
	SELECT * FROM unnest($1::text[]::uuid[], $2::text[], $3::int4[], $4::timestamptz[]) AS h(site_id, hashes, records, newest_at)),
locked AS (
	SELECT c.site_id FROM consent_chains c WHERE c.site_id IN (SELECT site_id FROM heads) ORDER BY c.site_id FOR UPDATE),
moved AS (
	UPDATE consent_chains c SET prev_hash = c.head_hash, head_seq = c.head_seq + 1,
		head_hash = encode(sha256(convert_to(c.head_hash || E'\n' || h.hashes, 'UTF8')), 'hex')
	FROM heads h, locked l WHERE c.site_id = h.site_id AND l.site_id = h.site_id
	RETURNING c.site_id, c.head_seq, c.head_hash, c.prev_hash),
batches AS (
	INSERT INTO consent_batches (site_id, seq, hash, prev_hash, records, newest_at)
	SELECT m.site_id, m.head_seq, m.head_hash, m.prev_hash, h.records, h.newest_at FROM moved m JOIN heads h USING (site_id)),
records AS (
	INSERT INTO consent_records (id, site_id, visitor_id, ip_country, jurisdiction,
		categories_consented, gpc_signal, do_not_sell, consent_version, action, created_at, page_url, user_agent,
		snapshot_hash, visitor_salt, visitor_hash, record_hash, batch_seq, batch_index, region, region_rule,
		tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant)
	SELECT id::uuid, m.site_id, visitor_id, ip_country, jurisdiction, cats::jsonb, gpc_signal, do_not_sell,
		consent_version, action, created_at, page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash,
		record_hash, m.head_seq, batch_index, region, region_rule, tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant
	FROM unnest($5::text[], $6::text[]::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bool[], $12::bool[],
		$13::int4[], $14::text[], $15::timestamptz[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[],
		$21::text[], $22::int4[], $23::text[], $24::text[], $25::text[], $26::text[], $27::int4[], $28::text[],
		$29::text[], $30::text[])
		AS u(id, site_id, visitor_id, ip_country, jurisdiction, cats, gpc_signal, do_not_sell, consent_version, action,
		created_at, page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash, record_hash,
		batch_index, region, region_rule, tc_string, ac_string, gvl_version, gpp_string, idempotency_key, variant)
		JOIN moved m USING (site_id)),
counts AS (
	INSERT INTO consent_counts AS c (site_id, bucket, shard, n)
	SELECT site_id, bucket, shard, n FROM unnest($31::text[]::uuid[], $32::timestamptz[], $33::int2[], $34::int8[]) AS u(site_id, bucket, shard, n)
	ON CONFLICT (site_id, bucket, shard) DO UPDATE SET n = c.n + EXCLUDED.n)
SELECT h.site_id::text, CASE WHEN m.site_id IS NULL THEN ('` + headMissingMark + `' || h.site_id)::int8 ELSE m.head_seq END,
	coalesce(m.head_hash, ''), coalesce(m.prev_hash, '')
FROM heads h LEFT JOIN moved m USING (site_id) ORDER BY h.site_id`

// headMissingMark is the text of the error pgWriteBatch raises for a site without a chain.
const headMissingMark = "consentd: no consent chain "

// queue adds the batch's statement to b (pgWriteBatch): each site's hashes, records and newest
// time (heads, in lock order, with bySite's records), the records and the counters, as columns.
func (w batchRows) queue(b *pgx.Batch, heads []consentChain, bySite map[string][]*consent.ConsentRecord) error {
	n := len(heads)
	site, hashes, recs, newest := make([]string, n), make([]string, n), make([]int32, n), make([]time.Time, n)
	var joined strings.Builder
	for i, h := range heads {
		joined.Reset()
		for _, r := range bySite[h.SiteID] {
			joined.WriteString(r.RecordHash)
			joined.WriteByte('\n')
		}
		site[i], hashes[i], recs[i], newest[i] = h.SiteID, joined.String(), int32(len(bySite[h.SiteID])), newestOf(bySite[h.SiteID])
	}

	n = len(w.records)
	var (
		id, siteID, visitor, country, jur, cats, action     = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		pageURL, ua, snap, salt, vhash, rhash, region, rule = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		tc, ac, gpp, variant                                = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		gpc, dns                                            = make([]bool, n), make([]bool, n)
		version, index, gvl                                 = make([]int32, n), make([]int32, n), make([]int32, n)
		created                                             = make([]time.Time, n)
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
		created[i], keys[i] = r.CreatedAt, r.IdempotencyKey
	}

	n = len(w.counts)
	csite, bucket, shard, cn := make([]string, n), make([]time.Time, n), make([]int16, n), make([]int64, n)
	for i, c := range w.counts {
		csite[i], bucket[i], shard[i], cn[i] = c.SiteID, c.Bucket, int16(c.Shard), c.N
	}
	b.Queue(pgWriteBatch, site, hashes, recs, newest,
		id, siteID, visitor, country, jur, cats, gpc, dns, version, action, created, pageURL, ua,
		snap, salt, vhash, rhash, index, region, rule, tc, ac, gvl, gpp, keys, variant,
		csite, bucket, shard, cn)
	return nil
}
