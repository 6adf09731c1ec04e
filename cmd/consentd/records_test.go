package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	sitepkg "github.com/consentd/consentd/core/site"
)

// TestRecordsVerify: `consentd records verify --site ID` prints the report and exits 0 on an
// intact log, 1 with the break on a log edited by SQL.
func TestRecordsVerify(t *testing.T) {
	t.Parallel()
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "records.db")
	env := []string{"CONSENTD_DATABASE_URL=" + dbURL}
	ctx := core.WithActor(context.Background(), core.System("consentd tests"))
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	m := a.UseCases()
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	name, url := "Shop", "https://shop.example"
	site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: &name, URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	var last *consent.ConsentRecord
	for range 5 {
		if last, err = m.PublicBanner.RecordConsent(ctx, site.ProjectKey, consent.ConsentInput{ConsentVersion: 1}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()

	out, stderr, err := runCLI(t, env, "records", "verify", "--site", site.ID)
	if err != nil {
		t.Fatalf("verify of an intact log: %v %s", err, stderr)
	}
	var rep consent.ChainReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.OK || rep.Records != 5 {
		t.Fatalf("report: %s (%v)", out, err)
	}

	s, err := bunstore.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "UPDATE consent_records SET consent_version = 2 WHERE id = ?", last.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out, stderr, err = runCLI(t, env, "records", "verify", "--site", site.ID)
	if err == nil || !strings.Contains(stderr, "broken at batch 5") {
		t.Fatalf("verify of an edited log: %v %s", err, stderr)
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.OK || rep.Break.RecordID != last.ID {
		t.Fatalf("report: %s", out)
	}
	if _, stderr, err = runCLI(t, env, "records", "verify", "--site", "00000000-0000-4000-8000-000000000000"); err == nil || !strings.Contains(stderr, "not found") {
		t.Fatalf("unknown site: %v %s", err, stderr)
	}
}
