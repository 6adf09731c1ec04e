package bunstore

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/consentd/consentd/core/consent"
)

// TestPGWriteBatchParamsEncodeInBinary: every argument of the batch statement encodes in
// pgx's preferred (binary) format for the type its first cast declares. A Go type pgx cannot
// encode that way ([]string for uuid[]) still works, because pgx then tries the text format,
// but only after formatting the whole array into an error message with %#v: it was a tenth of
// the server's CPU under ingest load.
func TestPGWriteBatchParamsEncodeInBinary(t *testing.T) {
	site := uuid.NewString()
	rs := []*consent.ConsentRecord{
		{ID: uuid.NewString(), SiteID: site, VisitorID: "v1", CategoriesConsented: map[string]bool{"essential": true},
			ConsentVersion: 1, Action: "accept_all", CreatedAt: time.Now().UTC()},
		{ID: uuid.NewString(), SiteID: site, VisitorID: "v2", CategoriesConsented: map[string]bool{"essential": true},
			ConsentVersion: 1, Action: "reject_all", CreatedAt: time.Now().UTC()},
	}
	for _, r := range rs {
		consent.SealConsentRecord(r)
	}
	bySite, heads := groupBySite(rs)
	b := &pgx.Batch{}
	if err := recordRows(1, rs).queue(b, heads, bySite); err != nil {
		t.Fatal(err)
	}
	q := b.QueuedQueries[len(b.QueuedQueries)-1]
	types := map[int]string{}
	for _, m := range regexp.MustCompile(`\$(\d+)::(\w+)\[\]`).FindAllStringSubmatch(q.SQL, -1) {
		n, _ := strconv.Atoi(m[1])
		if _, ok := types[n]; !ok {
			types[n] = "_" + m[2]
		}
	}
	if len(types) != len(q.Arguments) {
		t.Fatalf("the statement declares %d array parameters, the batch queues %d arguments", len(types), len(q.Arguments))
	}
	tm := pgtype.NewMap()
	for i, arg := range q.Arguments {
		typ, ok := tm.TypeForName(types[i+1])
		if !ok {
			t.Fatalf("$%d: no pgx type %s", i+1, types[i+1])
		}
		if _, err := tm.Encode(typ.OID, pgtype.BinaryFormatCode, arg, nil); err != nil {
			t.Errorf("$%d (%s): %T does not encode in binary: %.200v", i+1, types[i+1], arg, err)
		}
	}
}
