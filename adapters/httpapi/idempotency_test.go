package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// TestConsentLostCommitAnswersSQLite: every commit's answer is lost after the commit (the
// store's fault layer): see testLostCommitAnswers.
func TestConsentLostCommitAnswersSQLite(t *testing.T) {
	faults := &bunstore.Faults{}
	e := newEnvStore(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"), []byte("/* runtime */"), nil, bunstore.WithFaults(faults))
	testLostCommitAnswers(t, e, faults, sqliteCode(sqliteIOErrWrite))
}

// TestConsentLostCommitAnswersPostgres is TestConsentLostCommitAnswersSQLite on Postgres.
func TestConsentLostCommitAnswersPostgres(t *testing.T) {
	faults := &bunstore.Faults{}
	e := newEnvStore(t, pgtest.FreshURL(t), []byte("/* runtime */"), nil, bunstore.WithFaults(faults))
	testLostCommitAnswers(t, e, faults, io.ErrUnexpectedEOF) // the connection broke

}

// testLostCommitAnswers: while every commit's answer is lost after the commit, 16 clients post
// 96 decisions, each with its idempotency key, and then post each again with the same key.
// Each decision is stored exactly once, and every answer to a decision is its original
// receipt: a first answer that is a 201 and the second are the same record.
func testLostCommitAnswers(t *testing.T, e *env, faults *bunstore.Faults, lost error) {
	siteID, pk := e.site()
	post := "/api/v1/public/" + pk + "/consent"
	body := func(i int) string {
		return fmt.Sprintf(`{"visitorId":"v%d","consentVersion":1,"categories":{"statistics":%v},"key":"key-%016d"}`, i, i%2 == 0, i)
	}
	// The site's snapshot of what was shown is stored by the first decision.
	e.want(e.raw("POST", post, "", `{"visitorId":"warm","consentVersion":1,"categories":{}}`), http.StatusCreated)

	faults.LoseCommitAnswers(lost)
	const n = 96
	first := make([]resp, n)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				first[i] = e.raw("POST", post, "", body(i))
			}
		})
	}
	wg.Wait()
	if faults.LostCommits() == 0 {
		t.Fatal("no commit lost its answer: the test tests nothing")
	}
	receipts := map[int]string{}
	for i, r := range first {
		switch r.status {
		case http.StatusCreated:
			receipts[i] = r.obj(t)["id"].(string) + " " + r.obj(t)["recordHash"].(string)
		case http.StatusServiceUnavailable:
			e.want(r, http.StatusServiceUnavailable, "unavailable")
		default:
			t.Fatalf("decision %d: %d %s", i, r.status, r.body)
		}
	}
	// The database answered the check of each batch whose commit lost its answer: none was
	// reported as a failure.
	if len(receipts) != n {
		t.Errorf("%d of %d decisions committed were answered as failures", n-len(receipts), n)
	}
	// Posted again with their keys, still with every commit's answer lost.
	for i := range n {
		r := e.want(e.raw("POST", post, "", body(i)), http.StatusCreated).obj(t)
		got := r["id"].(string) + " " + r["recordHash"].(string)
		if want, ok := receipts[i]; ok && got != want {
			t.Errorf("decision %d: the retry's receipt %s, the first %s", i, got, want)
		}
		if r["visitorId"] != fmt.Sprintf("v%d", i) {
			t.Errorf("decision %d: the receipt names visitor %v", i, r["visitorId"])
		}
	}
	faults.LoseCommitAnswers(nil)

	var rows []struct {
		VisitorID string `bun:"visitor_id"`
		N         int    `bun:"n"`
	}
	if err := e.store.DB().NewSelect().Table("consent_records").ColumnExpr("visitor_id, count(*) AS n").
		Where("site_id = ?", siteID).Group("visitor_id").Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, r := range rows {
		stored[r.VisitorID] = r.N
	}
	for i := range n {
		if c := stored[fmt.Sprintf("v%d", i)]; c != 1 {
			t.Errorf("decision %d is stored %d times", i, c)
		}
	}
	t.Logf("%d commits lost their answer; %d of %d first answers were 201", faults.LostCommits(), len(receipts), n)
	// The chain still verifies.
	e.want(e.do("GET", "/api/v1/sites/"+siteID+"/consent-records/verify", nil), http.StatusOK)
}
