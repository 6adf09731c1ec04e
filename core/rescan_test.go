package core_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// listerOf walks a fixed list of sites the way a store does: by ID, a page at a time.
type listerOf []*core.Site

func (l listerOf) AllSites(_ context.Context, after string, limit int) ([]*core.Site, error) {
	sorted := slices.Clone(l)
	slices.SortFunc(sorted, func(a, b *core.Site) int { return strings.Compare(a.ID, b.ID) })
	var out []*core.Site
	for _, s := range sorted {
		if s.ID > after && len(out) < limit {
			out = append(out, s)
		}
	}
	return out, nil
}

func TestRescanAll(t *testing.T) {
	ctx := core.WithActor(context.Background(), core.System("rescan job"))
	var seq atomic.Int64
	q := &fakeQueue{}
	var sites listerOf
	m, err := usecases.New(usecases.Deps{
		Store: memstore.New(), Queue: q, Catalog: emptyCatalog(t), AllSites: &sites, Now: time.Now,
		NewID: func() string { return fmt.Sprintf("id-%06d", seq.Add(1)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	// More sites than one page, so that paging is exercised (a few more: memstore copies every
	// site in each transaction, so each site costs the test more than the last).
	for i := range scan.RescanPage + 5 {
		s, err := m.Sites.CreateSite(ctx, org.ID, site.SiteInput{Name: ptr(fmt.Sprint("site ", i)), URL: ptr(fmt.Sprintf("https://s%d.example/", i))})
		if err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
	}
	// One site already has a scan waiting: it must not get a second one.
	busy, err := m.Scans.TriggerScan(ctx, org.ID, sites[7].ID, scan.ScanInput{})
	if err != nil {
		t.Fatal(err)
	}
	q.jobs = nil

	n, err := m.ScanWorker.RescanAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(sites)-1 || len(q.jobs) != n {
		t.Fatalf("triggered %d scans, queued %d jobs; want %d", n, len(q.jobs), len(sites)-1)
	}
	seen := map[string]bool{}
	for _, j := range q.jobs {
		if seen[j.SiteID] {
			t.Fatalf("site %s rescanned twice", j.SiteID)
		}
		seen[j.SiteID] = true
		if j.SiteID == busy.SiteID {
			t.Fatalf("site %s with a pending scan was rescanned", j.SiteID)
		}
	}
	if j := q.jobs[0]; len(j.URLs) != 1 || !strings.HasPrefix(j.URLs[0], "https://s") {
		t.Fatalf("rescan urls = %v, want the site's homepage", j.URLs)
	}

	// Run again: every site now has a pending scan, so nothing is triggered.
	if n, err := m.ScanWorker.RescanAll(ctx); err != nil || n != 0 {
		t.Fatalf("second rescan: %d, %v; want 0 while scans are pending", n, err)
	}
}

func emptyCatalog(t *testing.T) core.Catalog {
	t.Helper()
	c, err := library.FromServices(nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
