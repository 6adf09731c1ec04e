package httpapi_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// exportLine is one NDJSON line of an export, as a third party reads it.
type exportLine struct {
	ID                  string          `json:"id"`
	SiteID              string          `json:"siteId"`
	VisitorID           string          `json:"visitorId"`
	IPCountry           string          `json:"ipCountry"`
	Jurisdiction        string          `json:"jurisdiction"`
	Region              string          `json:"region"`
	RegionRule          string          `json:"regionRule"`
	CategoriesConsented map[string]bool `json:"categoriesConsented"`
	GPCSignal           bool            `json:"gpcSignal"`
	DoNotSell           bool            `json:"doNotSell"`
	ConsentVersion      int             `json:"consentVersion"`
	Action              string          `json:"action"`
	CreatedAt           time.Time       `json:"createdAt"`
	PageURL             string          `json:"pageUrl"`
	UserAgent           string          `json:"userAgent"`
	SnapshotHash        string          `json:"snapshotHash"`
	VisitorSalt         string          `json:"visitorSalt"`
	VisitorHash         string          `json:"visitorHash"`
	RecordHash          string          `json:"recordHash"`
	BatchSeq            int64           `json:"batchSeq"`
	BatchIndex          int             `json:"batchIndex"`
	BatchHash           string          `json:"batchHash"`
	PrevBatchHash       string          `json:"prevBatchHash"`
	TCString            string          `json:"tcString"`
	ACString            string          `json:"acString"`
	GVLVersion          int             `json:"gvlVersion"`
}

func hexSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// thirdPartyCheck verifies a full NDJSON export with nothing but the algorithm of
// docs/consent-records.md ("Checking an export without consentd"): it shares no code with
// consentd's own verification, on purpose.
func thirdPartyCheck(ndjson []byte) error {
	var recs []exportLine
	sc := bufio.NewScanner(bytes.NewReader(ndjson))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l exportLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return err
		}
		recs = append(recs, l)
	}
	// 1. Each record's hash.
	for _, r := range recs {
		slugs := make([]string, 0, len(r.CategoriesConsented))
		for s := range r.CategoriesConsented {
			slugs = append(slugs, s)
		}
		slices.Sort(slugs)
		cats := make([]string, len(slugs))
		for i, s := range slugs {
			cats[i] = s + "=0"
			if r.CategoriesConsented[s] {
				cats[i] = s + "=1"
			}
		}
		f := []string{"consentd-record-v1", r.ID, r.SiteID, r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z"),
			r.VisitorHash, r.IPCountry, r.Jurisdiction, r.Action, strings.Join(cats, ","), strconv.FormatBool(r.GPCSignal),
			strconv.FormatBool(r.DoNotSell), strconv.Itoa(r.ConsentVersion), r.PageURL, r.UserAgent, r.SnapshotHash}
		if r.Region != "" || r.RegionRule != "" {
			f[0] = "consentd-record-v2"
			f = append(f, r.Region, r.RegionRule)
		}
		if r.TCString != "" || r.ACString != "" || r.GVLVersion != 0 {
			f = append(f[:15], r.Region, r.RegionRule, strconv.Itoa(r.GVLVersion), r.TCString, r.ACString)
			f[0] = "consentd-record-v3"
		}
		line := strings.Join(f, "\t")
		if hexSHA(line) != r.RecordHash {
			return fmt.Errorf("record %s: recordHash does not match its fields", r.ID)
		}
		if r.VisitorID != "" && hexSHA(r.VisitorSalt+":"+r.VisitorID) != r.VisitorHash {
			return fmt.Errorf("record %s: visitorHash does not match visitorId", r.ID)
		}
	}
	// 2. Each batch's hash, and the links between consecutive batches.
	slices.SortFunc(recs, func(a, b exportLine) int {
		if a.BatchSeq != b.BatchSeq {
			return int(a.BatchSeq - b.BatchSeq)
		}
		return a.BatchIndex - b.BatchIndex
	})
	prevSeq, prevHash := int64(-1), ""
	for i := 0; i < len(recs); {
		j := i
		body := recs[i].PrevBatchHash + "\n"
		for ; j < len(recs) && recs[j].BatchSeq == recs[i].BatchSeq; j++ {
			if recs[j].BatchIndex != j-i {
				return fmt.Errorf("batch %d: index %d missing", recs[i].BatchSeq, j-i)
			}
			body += recs[j].RecordHash + "\n"
		}
		if hexSHA(body) != recs[i].BatchHash {
			return fmt.Errorf("batch %d: batchHash does not match its records", recs[i].BatchSeq)
		}
		if prevSeq >= 0 && (recs[i].BatchSeq != prevSeq+1 || recs[i].PrevBatchHash != prevHash) {
			return fmt.Errorf("batch %d does not follow batch %d", recs[i].BatchSeq, prevSeq)
		}
		if prevSeq < 0 && recs[i].BatchSeq == 1 && recs[i].PrevBatchHash != strings.Repeat("0", 64) {
			return fmt.Errorf("batch 1 does not start from the genesis hash")
		}
		prevSeq, prevHash = recs[i].BatchSeq, recs[i].BatchHash
		i = j
	}
	return nil
}

func TestProofOfConsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	pub := "/api/v1/public/" + pk + "/consent"
	const ua = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
	var wg sync.WaitGroup
	answers := make([]map[string]any, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := fmt.Sprint("visitor-", i)
			if i%5 == 0 {
				v = "alice"
			}
			body := mustJSON(map[string]any{"visitorId": v, "categories": map[string]bool{"statistics": i%2 == 0}, "consentVersion": 1,
				"language": []string{"", "de"}[i%2], "runtimeVersion": "1.4.0", "pageUrl": "https://Shop.example:443/checkout?email=a@b.c#top"})
			r := e.raw("POST", pub, "", body, "X-Country", "FR", "User-Agent", ua, "Content-Type", "application/json")
			if r.status != 201 {
				t.Errorf("post: %d %s", r.status, r.body)
				return
			}
			answers[i] = r.obj(t)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	a := answers[1]
	if h, _ := a["recordHash"].(string); len(h) != 64 || a["id"] == "" || a["visitorId"] != "visitor-1" {
		t.Fatalf("the consent answer is no receipt: %v", a)
	}
	// Nothing in the answer helps link a visitor's records or rebuild the chain.
	for _, k := range []string{"visitorSalt", "visitorHash", "batchHash", "prevBatchHash", "batchSeq", "batchIndex", "pageUrl", "userAgent"} {
		if _, ok := a[k]; ok {
			t.Fatalf("the receipt carries %s: %v", k, a)
		}
	}
	if strings.Contains(string(mustJSON(a)), "127.0.0.1") {
		t.Fatal("the record holds the IP address")
	}

	// What was shown: one snapshot per language, content-addressed.
	shown := map[string]bool{}
	for _, a := range answers {
		shown[a["snapshotHash"].(string)] = true
	}
	if len(shown) != 2 {
		t.Fatalf("%d snapshots for two languages", len(shown))
	}
	for h := range shown {
		r := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-snapshots/"+h, nil), 200)
		var snap struct {
			Hash    string          `json:"hash"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(r.body, &snap); err != nil || snap.Hash != h || hexSHA(string(snap.Content)) != h {
			t.Fatalf("snapshot %s: content does not hash to it (%v)", h, err)
		}
		if !bytes.Contains(snap.Content, []byte(`"runtimeVersion":"1.4.0"`)) || !bytes.Contains(snap.Content, []byte(`"slug":"marketing"`)) {
			t.Fatalf("snapshot content: %s", snap.Content)
		}
	}
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-snapshots/"+strings.Repeat("a", 64), nil), 404, "not_found")

	// Verification, and the third party's own check of the export.
	rep := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/verify", nil), 200).obj(t)
	if rep["ok"] != true || rep["records"].(float64) != 40 {
		t.Fatalf("verify: %v", rep)
	}
	export := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=ndjson", nil), 200).body
	if err := thirdPartyCheck(export); err != nil {
		t.Fatalf("third-party check of an untouched export: %v", err)
	}
	if bytes.Count(export, []byte(`"pageUrl":"https://shop.example/checkout"`)) != 40 || bytes.Count(export, []byte(`"userAgent":"Safari mobile"`)) != 40 {
		t.Fatalf("page URL or browser family not stored as reduced: %s", export[:min(len(export), 600)])
	}
	forged := bytes.Replace(export, []byte(`"action":"custom"`), []byte(`"action":"accept_all"`), 1)
	if bytes.Equal(forged, export) {
		forged = bytes.Replace(export, []byte(`"action":"reject_all"`), []byte(`"action":"accept_all"`), 1)
	}
	if err := thirdPartyCheck(forged); err == nil {
		t.Fatal("the third-party check accepts an edited export")
	}
	csvExport := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=csv&visitorId=alice", nil), 200).body
	if n := bytes.Count(csvExport, []byte("\n")); n != 9 || !bytes.Contains(csvExport, []byte("recordHash,batchSeq,batchIndex,batchHash,prevBatchHash")) {
		t.Fatalf("csv export of a visitor: %d lines\n%s", n, csvExport)
	}

	// Listing: a visitor's records, and every record once by cursor.
	page := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records?visitorId=alice", nil), 200).obj(t)
	if page["total"].(float64) != 8 {
		t.Fatalf("alice has %v records, want 8", page["total"])
	}
	seen := map[string]bool{}
	cursor := ""
	for range 20 {
		q := "/api/v1/sites/" + id + "/consent-records?limit=7"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := e.want(e.do("GET", q, nil), 200).obj(t)
		for _, r := range p["records"].([]any) {
			rid := r.(map[string]any)["id"].(string)
			if seen[rid] {
				t.Fatalf("record %s listed twice", rid)
			}
			seen[rid] = true
		}
		c, _ := p["nextCursor"].(string)
		if c == "" {
			break
		}
		cursor = c
	}
	if len(seen) != 40 {
		t.Fatalf("the cursor walk saw %d records, want 40", len(seen))
	}
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records?cursor=bm9wZQ", nil), 400, "validation_error")
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records?page=2&cursor="+url.QueryEscape(cursor), nil), 400, "validation_error")

	// Statistics: in UTC buckets, the decisions counted.
	st := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-stats?interval=hour&from="+url.QueryEscape(time.Now().Add(-2*time.Hour).Format(time.RFC3339)), nil), 200).obj(t)
	var total float64
	for _, b := range st["buckets"].([]any) {
		total += b.(map[string]any)["total"].(float64)
	}
	if total != 40 || st["timeZone"] != "UTC" {
		t.Fatalf("stats: %v decisions, zone %v", total, st["timeZone"])
	}
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-stats?interval=month", nil), 400, "validation_error")
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-stats?from=2026-02-01&to=2026-01-01", nil), 400, "validation_error")
	e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-stats?interval=hour&from=2025-01-01&to=2026-01-01", nil), 400, "validation_error")

	// Erasure: alice is gone from her records; the chain still verifies, here and outside.
	er := e.want(e.do("DELETE", "/api/v1/sites/"+id+"/visitors/alice", nil), 200).obj(t)
	if er["erased"].(float64) != 8 {
		t.Fatalf("erased %v", er["erased"])
	}
	page = e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records?visitorId=alice", nil), 200).obj(t)
	if page["total"].(float64) != 0 {
		t.Fatal("alice is still listed")
	}
	if rep := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/verify", nil), 200).obj(t); rep["ok"] != true {
		t.Fatalf("verify after erasure: %v", rep)
	}
	export = e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=ndjson", nil), 200).body
	if err := thirdPartyCheck(export); err != nil || bytes.Contains(export, []byte("alice")) {
		t.Fatalf("export after erasure: %v", err)
	}

	// Another organization sees none of it.
	for _, p := range []string{"/consent-records/verify", "/consent-stats", "/consent-snapshots/" + strings.Repeat("a", 64)} {
		e.want(e.do("GET", "/api/v1/sites/"+id+p, nil, e.keyB), 404, "not_found")
	}
	e.want(e.do("DELETE", "/api/v1/sites/"+id+"/visitors/bob", nil, e.keyB), 404, "not_found")

	// Bad input is a 400.
	for _, body := range []map[string]any{
		{"consentVersion": 1, "categories": map[string]bool{}, "pageUrl": "javascript:alert(1)"},
		{"consentVersion": 1, "categories": map[string]bool{}, "runtimeVersion": "1.0 beta"},
		{"consentVersion": 1, "categories": map[string]bool{}, "language": "de\x01"},
	} {
		e.want(e.raw("POST", pub, "", string(mustJSON(body)), "Content-Type", "application/json"), 400, "validation_error")
	}

	// Retention is a site setting, off by default, validated in core.
	s := e.want(e.do("GET", "/api/v1/sites/"+id, nil), 200).obj(t)
	if v, ok := s["consentRetentionDays"]; !ok || v != nil {
		t.Fatalf("retention by default: %v", v)
	}
	e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"consentRetentionDays": 0}), 400, "validation_error")
	e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"consentRetentionDays": 3651}), 400, "validation_error")
	s = e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"consentRetentionDays": 400}), 200).obj(t)
	if s["consentRetentionDays"] != float64(400) {
		t.Fatalf("retention set: %v", s["consentRetentionDays"])
	}
	s = e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"consentRetentionDays": nil}), 200).obj(t)
	if s["consentRetentionDays"] != nil {
		t.Fatalf("retention cleared: %v", s["consentRetentionDays"])
	}
}
