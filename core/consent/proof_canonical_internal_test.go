package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
)

// TestConsentCanonicalAsJoined: the canonical line appended field by field (no allocation per
// field) is byte for byte the line as it was first written, fields joined with tabs
// (canonicalByJoin, kept here as the reference), for records of every version; the hashes
// are the hex SHA-256 of the line and of salt:visitor.
func TestConsentCanonicalAsJoined(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	pick := func(vs ...string) string { return vs[rnd.IntN(len(vs))] }
	for i := range 3000 {
		r := &ConsentRecord{ID: "0193-" + strconv.Itoa(i), SiteID: pick("s1", "site-2"), VisitorHash: pick("", "ab12"),
			CreatedAt: time.Unix(rnd.Int64N(1<<33), rnd.Int64N(1e9)).In(time.FixedZone("z", (rnd.IntN(48)-24)*1800)),
			IPCountry: pick("", "DE", "US"), Jurisdiction: pick("gdpr", "ccpa", "none"), Action: pick("accept_all", "custom"),
			GPCSignal: rnd.IntN(2) == 0, DoNotSell: rnd.IntN(2) == 0, ConsentVersion: rnd.IntN(2000),
			PageURL: pick("", "https://shop.example/p"), UserAgent: pick("", "chrome/desktop"), SnapshotHash: pick("", "cd34"),
			Region: pick("", "", "US-CA"), RegionRule: pick("", "", "regionRules[1]", "defaultBehavior"),
			GVLVersion: pick2(rnd, 0, 17), TCString: pick("", "", "CQ.IF"), ACString: pick("", "", "2~89~dv.89"),
			GPPString:           pick("", "", "DBABL~CVQqAAAAAABY.Q"),
			CategoriesConsented: map[string]bool{},
		}
		for range rnd.IntN(20) {
			r.CategoriesConsented[pick("necessary", "statistics", "marketing", "functional", "c"+strconv.Itoa(rnd.IntN(30)))] = rnd.IntN(2) == 0
		}
		want := canonicalByJoin(r)
		if got := ConsentCanonical(r); got != want {
			t.Fatalf("record %d:\n got %q\nwant %q", i, got, want)
		}
		if got, sum := ConsentRecordHash(r), sha256.Sum256([]byte(want)); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("record %d: hash %s", i, got)
		}
		salt, visitor := strings.Repeat("s", rnd.IntN(300)), strings.Repeat("v", rnd.IntN(300))
		if got, sum := VisitorHash(salt, visitor), sha256.Sum256([]byte(salt+":"+visitor)); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("record %d: visitor hash %s", i, got)
		}
	}
}

func pick2(rnd *rand.Rand, a, b int) int {
	if rnd.IntN(3) == 0 {
		return b
	}
	return a
}

// BenchmarkSealConsentRecord is core's CPU per record for its proof: salt, visitor hash,
// canonical line and record hash.
//
//	go test -run '^$' -bench SealConsentRecord -benchmem ./core/
func BenchmarkSealConsentRecord(b *testing.B) {
	r := &ConsentRecord{ID: "0193a5c4-9f1e-7b3a-8c2d-4e5f6a7b8c9d", SiteID: "0193a5c4-0000-7b3a-8c2d-4e5f6a7b8c9d",
		VisitorID: "bench-1", CreatedAt: time.Now(), IPCountry: "DE", Jurisdiction: "gdpr", Action: "custom",
		CategoriesConsented: map[string]bool{"necessary": true, "functional": false, "statistics": true, "marketing": false},
		ConsentVersion:      1, PageURL: "https://shop.example/p/7", UserAgent: "chrome/desktop",
		SnapshotHash: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"}
	for b.Loop() {
		r.VisitorSalt = ""
		SealConsentRecord(r)
	}
}

// canonicalByJoin is ConsentCanonical as it was first written, the reference of
// TestConsentCanonicalAsJoined.
func canonicalByJoin(r *ConsentRecord) string {
	slugs := make([]string, 0, len(r.CategoriesConsented))
	for s := range r.CategoriesConsented {
		slugs = append(slugs, s)
	}
	slices.Sort(slugs)
	var cats strings.Builder
	for i, s := range slugs {
		if i > 0 {
			cats.WriteByte(',')
		}
		cats.WriteString(s)
		if r.CategoriesConsented[s] {
			cats.WriteString("=1")
		} else {
			cats.WriteString("=0")
		}
	}
	fields := []string{
		ConsentCanonicalVersion, r.ID, r.SiteID, core.CanonicalTime(r.CreatedAt), r.VisitorHash, r.IPCountry,
		r.Jurisdiction, r.Action, cats.String(), strconv.FormatBool(r.GPCSignal), strconv.FormatBool(r.DoNotSell),
		strconv.Itoa(r.ConsentVersion), r.PageURL, r.UserAgent, r.SnapshotHash,
	}
	// A record with a region or a regional rule seals them too; one with neither keeps the v1
	// line, so that every record stored before them still verifies, and emptying both fields
	// of a v2 record changes its line (the version) and breaks its hash.
	if r.Region != "" || r.RegionRule != "" {
		fields[0] = ConsentCanonicalVersionRegion
		fields = append(fields, r.Region, r.RegionRule)
	}
	// A record with TCF strings or a GVL version seals them after the region fields (present,
	// possibly empty); one without keeps its v1 or v2 line.
	if r.TCString != "" || r.ACString != "" || r.GVLVersion != 0 {
		if fields[0] != ConsentCanonicalVersionRegion {
			fields = append(fields, r.Region, r.RegionRule)
		}
		fields[0] = ConsentCanonicalVersionTCF
		fields = append(fields, strconv.Itoa(r.GVLVersion), r.TCString, r.ACString)
	}
	// A record with a GPP string seals it after the v3 fields (present, possibly empty); one
	// without keeps its v1, v2 or v3 line.
	if r.GPPString != "" {
		switch fields[0] {
		case ConsentCanonicalVersion:
			fields = append(fields, r.Region, r.RegionRule, "0", "", "")
		case ConsentCanonicalVersionRegion:
			fields = append(fields, "0", "", "")
		}
		fields[0] = ConsentCanonicalVersionGPP
		fields = append(fields, r.GPPString)
	}
	return strings.Join(fields, "\t")
}
