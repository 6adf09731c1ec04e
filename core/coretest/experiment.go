package coretest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/usecases"
)

// testExperiments: an experiment comes back as stored (variants with their patches, regions,
// times), experiments list the newest first per site, an update stores every field, unknown
// ones are not_found, and a deleted site takes its experiments with it.
func testExperiments(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	other := seed(t, s)
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	tmpl, no := "modal", false
	e := &experiment.Experiment{ID: id(), SiteID: f.site.ID, Name: "Wording", Status: experiment.StatusDraft, Metric: experiment.MetricConsentRate,
		Regions: []string{"EU", "US-CA"}, Variants: []experiment.Variant{
			{Key: "control", Name: "Control", Weight: 50},
			{Key: "b", Name: "Shorter", Weight: 50, Patch: experiment.Patch{Template: &tmpl, RejectOnFirstLayer: &no,
				TextOverrides: map[string]string{"headline": "We value your privacy"}, TextTranslations: map[string]map[string]string{"de": {"headline": "Datenschutz"}}}},
		}, CreatedAt: at, UpdatedAt: at}
	must(t, s.CreateExperiment(ctx, e))
	if err := s.CreateExperiment(ctx, e); !core.IsConflict(err) {
		t.Fatalf("second create: %v, want conflict", err)
	}
	later := &experiment.Experiment{ID: id(), SiteID: f.site.ID, Name: "Layout", Status: experiment.StatusDraft, Metric: experiment.MetricAcceptAllRate,
		Regions: []string{}, Variants: []experiment.Variant{{Key: "a", Name: "a", Weight: 30}, {Key: "c", Name: "c", Weight: 70}},
		CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(time.Hour)}
	must(t, s.CreateExperiment(ctx, later))
	got, err := s.Experiment(ctx, f.site.ID, e.ID)
	must(t, err)
	same(t, "experiment", got, e)
	if _, err := s.Experiment(ctx, other.site.ID, e.ID); !core.IsNotFound(err) {
		t.Fatalf("another site's experiment: %v, want not_found", err)
	}
	list, err := s.Experiments(ctx, f.site.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != later.ID || list[1].ID != e.ID {
		t.Fatalf("Experiments = %+v, want the later first", list)
	}
	if list, err := s.Experiments(ctx, other.site.ID); err != nil || len(list) != 0 {
		t.Fatalf("another site's list: %v %v", list, err)
	}
	started, winner := at.Add(2*time.Hour), "b"
	e.Status, e.StartedAt, e.StoppedAt, e.Winner, e.UpdatedAt = experiment.StatusPromoted, &started, &started, &winner, started
	must(t, s.UpdateExperiment(ctx, e))
	got, err = s.Experiment(ctx, f.site.ID, e.ID)
	must(t, err)
	same(t, "updated experiment", got, e)
	ghost := *e
	ghost.ID = id()
	if err := s.UpdateExperiment(ctx, &ghost); !core.IsNotFound(err) {
		t.Fatalf("update of an unknown experiment: %v, want not_found", err)
	}
	must(t, s.DeleteSite(ctx, f.site.ID))
	if _, err := s.Experiment(ctx, f.site.ID, e.ID); !core.IsNotFound(err) {
		t.Fatalf("experiment of a deleted site: %v", err)
	}
}

// same fails unless got and want have the same JSON.
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	must(t, err)
	w, err := json.Marshal(want)
	must(t, err)
	if string(g) != string(w) {
		t.Fatalf("%s = %s, want %s", what, g, w)
	}
}

// testConsentVariant: a record's variant is stored, listed and exported as written, its hash
// (consentd-record-v5) still matching; a record without one lists it empty.
func testConsentVariant(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	r := consentAt(f.site.ID, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), "v-variant")
	r.Variant = experiment.VariantID("0192f3a4-5b6c-7d8e-9f00-112233445566", "second-layer")
	byID, plain := storeBesidePlain(t, s, r)
	if g := byID[r.ID]; g == nil || g.Variant != r.Variant || consent.ConsentRecordHash(g) != r.RecordHash {
		t.Fatalf("record with a variant round trip: %+v", g)
	}
	if !strings.HasPrefix(consent.ConsentCanonical(r), consent.ConsentCanonicalVersionVariant+"\t") {
		t.Fatalf("canonical line %q", consent.ConsentCanonical(r))
	}
	if g := byID[plain.ID]; g == nil || g.Variant != "" {
		t.Fatalf("record without a variant round trip: %+v", g)
	}
	page, _, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	must(t, err)
	found := false
	for _, g := range page {
		found = found || g.Variant == r.Variant
	}
	if !found {
		t.Fatal("the listing lost the variant")
	}
}
