package riverqueue

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	sitepkg "github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
)

// TestConsentRetentionJob: the periodic job removes the records a site's retention has
// expired, and only those; the chain verifies from its new anchor. It removes the audit
// entries that retention has expired too, once no site keeps its records for ever.
func TestConsentRetentionJob(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		ctx := testCtx
		store, q, _ := newStoreAndQueue(t, dialect, Config{Workers: 1, PollInterval: 50 * time.Millisecond})
		var mu sync.Mutex
		clock := time.Now().AddDate(0, 0, -90)
		now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
		m, err := usecases.New(usecases.Deps{Store: store, Queue: q, Catalog: noCatalog{}, AllSites: store, Now: now,
			NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
		if err != nil {
			t.Fatal(err)
		}
		org, err := m.Orgs.CreateOrganization(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		keep, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Keeps all"), URL: ptr("https://a.example/")})
		if err != nil {
			t.Fatal(err)
		}
		site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example/"),
			ConsentRetentionDays: banner.Optional[int]{Set: true, Value: 30}})
		if err != nil {
			t.Fatal(err)
		}
		post := func(s *core.Site, n int) {
			for range n {
				if _, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{ConsentVersion: 1}); err != nil {
					t.Fatal(err)
				}
			}
		}
		post(site, 7) // 90 days ago
		post(keep, 3)
		mu.Lock()
		clock = time.Now()
		mu.Unlock()
		post(site, 4)
		q.SetConsentRetention(struct {
			*consent.ConsentLog
			*identity.AuditLog
		}{m.ConsentLog, m.AuditLog}, 100*time.Millisecond)
		startWorkers(t, q, m.ScanWorker)
		total := func(s *core.Site) int {
			_, n, err := m.ConsentLog.ConsentRecords(ctx, org.ID, consent.ConsentQuery{SiteID: s.ID, Page: 1, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		deadline := time.Now().Add(20 * time.Second)
		for total(site) != 4 {
			if time.Now().After(deadline) {
				t.Fatalf("after 20 s the site still has %d records, want 4", total(site))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if total(keep) != 3 {
			t.Fatal("retention removed records of a site without retention")
		}
		rep, err := m.ConsentLog.VerifyConsentChain(ctx, org.ID, site.ID)
		if err != nil || !rep.OK || rep.Records != 4 || rep.Chain.AnchorSeq != 7 {
			t.Fatalf("chain after retention: %+v %v", rep, err)
		}
		// The audit log: both sites were created 90 days ago (1, 2); while the first keeps its
		// records for ever its entry stays, and the second's waits behind it. Giving the first
		// a retention (3, now) lets the job remove both.
		actx := core.WithActor(ctx, core.System("test"))
		if _, err := m.Sites.UpdateSite(actx, org.ID, keep.ID, sitepkg.SiteInput{ConsentRetentionDays: banner.Optional[int]{Set: true, Value: 60}}); err != nil {
			t.Fatal(err)
		}
		for {
			arep, err := m.AuditLog.VerifyAuditLog(actx, org.ID)
			if err != nil || !arep.OK {
				t.Fatalf("audit log: %+v %v", arep, err)
			}
			if arep.Entries == 1 && arep.HeadSeq == 3 {
				break
			}
			if time.Now().After(deadline.Add(10 * time.Second)) {
				t.Fatalf("the audit log still has %d entries up to %d, want 1 up to 3", arep.Entries, arep.HeadSeq)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
