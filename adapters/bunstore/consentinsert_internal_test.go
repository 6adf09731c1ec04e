package bunstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// TestConsentInsertAsBun: consentInsert renders exactly what bun renders for the same rows,
// on SQLite and Postgres, for values that need quoting, escaping and NULL.
func TestConsentInsertAsBun(t *testing.T) {
	seq, zero, key := int64(42), int64(0), "k'1_-"
	rows := []consentRecord{
		{ID: "01a21775-009a-7a0f-9497-3c07bc65d471", SiteID: "01a21774-ee7e-7e58-8bbd-fe7213b59ca1", VisitorID: `v'1"\x`,
			IPCountry: "DE", Jurisdiction: "gdpr", CategoriesConsented: consentCategories{"essential": true, "marketing": false, "it's": true},
			GPCSignal: true, DoNotSell: false, ConsentVersion: 1000000, Action: "custom",
			CreatedAt: time.Date(2026, 11, 26, 10, 44, 33, 562659000, time.FixedZone("x", 3600)),
			PageURL:   "https://shop.example/ä/%27", UserAgent: "Firefox desktop", SnapshotHash: "e46c", VisitorSalt: "RZX6",
			VisitorHash: "f481", RecordHash: "d166", BatchSeq: &seq, BatchIndex: 3, IdempotencyKey: &key},
		{ID: "b", SiteID: "s", VisitorID: "tab\there\nnew 😀", CategoriesConsented: consentCategories{}, CreatedAt: time.Unix(0, 0).UTC(), BatchSeq: &zero,
			IdempotencyKey: &key},
	}
	for name, open := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "t.db") },
		"postgres": func(t *testing.T) string { return pgtest.ServerURL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Open(context.Background(), open(t))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want, err := s.db.NewInsert().Model(&rows).AppendQuery(s.root.QueryGen(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := consentInsert(rows).AppendQuery(s.root.QueryGen(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// BenchmarkConsentInsert: rendering a batch of 8 records' INSERT, by bun and by consentInsert.
//
//	go test -run '^$' -bench ConsentInsert -benchmem ./adapters/bunstore/
func BenchmarkConsentInsert(b *testing.B) {
	s, err := Open(context.Background(), "sqlite://"+filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	seq := int64(7)
	rows := make([]consentRecord, 8)
	for i := range rows {
		rows[i] = consentRecord{ID: "01a21775-009a-7a0f-9497-3c07bc65d471", SiteID: "01a21774-ee7e-7e58-8bbd-fe7213b59ca1",
			VisitorID: "v_3jgP3Eem112A", Jurisdiction: "none", CategoriesConsented: consentCategories{"essential": true, "marketing": false, "statistics": true},
			ConsentVersion: 1, Action: "custom", CreatedAt: time.Now(), SnapshotHash: "e46cf1ca7c28279f53344d5db0497144e851e0d2c9dcb1308ea5277affaf1fcc",
			VisitorSalt: "RZX67R76ZUW77KVJ6DGSGSHOGX", VisitorHash: "f481698d7aac649cbdababc28699a7353b4637945a8ecda81f5e5bbf58f32f28",
			RecordHash: "d166fe27b39b6f54934917040b94a18d9eaaca2e54988f611836f67e004730b7", BatchSeq: &seq, BatchIndex: i}
	}
	gen := s.root.QueryGen()
	b.Run("bun", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.root.NewInsert().Model(&rows).AppendQuery(gen, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("consentInsert", func(b *testing.B) {
		for b.Loop() {
			if _, err := consentInsert(rows).AppendQuery(gen, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
