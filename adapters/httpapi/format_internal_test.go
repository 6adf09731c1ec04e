package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core/consent"
)

// TestJSONFormatAsDefault: jsonFormat writes every receipt byte for byte as huma's default
// JSON format (encoding/json) does, and decodes every consent body to the same value, with the
// same fault or error.
func TestJSONFormatAsDefault(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	berlin, _ := time.LoadLocation("Europe/Berlin")
	times := []time.Time{
		time.Date(2026, 11, 26, 19, 5, 42, 123456789, time.UTC),
		time.Date(2026, 11, 26, 19, 5, 42, 0, time.UTC),
		time.Date(2026, 11, 26, 19, 5, 42, 120000000, berlin),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("odd", 5*3600+30*60+7)),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("far", -23*3600-59*60)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		{},
	}
	texts := []string{"", "v1", "a<b>&c", `q"uote`, `back\slash`, "tab\there", "é", "\u2028", "a\xffb", "\x7f", "~"}
	receipts := []*consent.ConsentReceipt{}
	for _, at := range times {
		for _, s := range texts {
			receipts = append(receipts, &consent.ConsentReceipt{ID: "0193", VisitorID: s, RecordHash: "ab" + s, SnapshotHash: s + "cd", CreatedAt: at})
		}
	}
	for range 500 {
		s := make([]byte, rnd.IntN(12))
		for i := range s {
			s[i] = byte(rnd.IntN(256))
		}
		receipts = append(receipts, &consent.ConsentReceipt{ID: string(s), VisitorID: string(s[:len(s)/2]),
			CreatedAt: time.Unix(rnd.Int64N(1<<35)-1<<34, rnd.Int64N(1e9)).In(time.FixedZone("z", (rnd.IntN(96)-48)*900))})
	}
	for _, r := range receipts {
		var got, want bytes.Buffer
		gotErr, wantErr := jsonFormat.Marshal(&got, r), huma.DefaultJSONFormat.Marshal(&want, r)
		if got.String() != want.String() || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%#v:\n got %q, %v\nwant %q, %v", r, got.String(), gotErr, want.String(), wantErr)
		}
	}

	bodies := []string{
		`{"categories":{"statistics":true},"consentVersion":1,"visitorId":"v1","language":"de","runtimeVersion":"1.4.0","pageUrl":"https://shop.example/p?x=1"}`,
		" \t\r\n{\"categories\":{},\"consentVersion\":1} \n",
		`{"categories":{},"consentVersion":1,"visitorId":"a\ud800b"}`,
		"{\"categories\":{},\"consentVersion\":1,\"visitorId\":\"a\xffb\"}",
		`{"categories":{},"consentVersion":1,"VisitorId":"x"}`,
		`{"categories":{},"consentVersion":1,"visitorId":"x\u0000"}`,
		`null`, ` null `, `[]`, `"text"`, `12`, `true`, ``, ` `, `{`, `{"categories":{},}`, `{"a":1}{"b":2}`,
		`{"categories":{},"consentVersion":1e400}`, `{"categories":{"x":"yes"},"consentVersion":1}`,
		"\u00a0{\"categories\":{},\"consentVersion\":1}", "{\"categories\":{},\"consentVersion\":1}\v",
	}
	for _, body := range bodies {
		var got, want consentBody
		gotErr, wantErr := jsonFormat.Unmarshal([]byte(body), &got), json.Unmarshal([]byte(body), &want)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprint(got.refused) != fmt.Sprint(want.refused) {
			t.Errorf("%q: got %v (refused %v), want %v (refused %v)", body, gotErr, got.refused, wantErr, want.refused)
		}
		got.refused, want.refused = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, want %+v", body, got, want)
		}
	}
}

// BenchmarkJSONFormat compares jsonFormat with huma's default on the consent POST's body and
// receipt, which justifies keeping it.
//
//	go test -run '^$' -bench JSONFormat -benchmem ./adapters/httpapi/
func BenchmarkJSONFormat(b *testing.B) {
	body := []byte(`{"visitorId":"bench-1","consentVersion":1,"categories":{"statistics":true},"language":"de","runtimeVersion":"1.4.0","pageUrl":"https://shop.example/p/7?session=1"}`)
	r := &consent.ConsentReceipt{ID: "0193a5c4-9f1e-7b3a-8c2d-4e5f6a7b8c9d", VisitorID: "bench-1",
		RecordHash:   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		SnapshotHash: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752", CreatedAt: time.Now().UTC()}
	for _, f := range []struct {
		name string
		f    huma.Format
	}{{"default", huma.DefaultJSONFormat}, {"consentd", jsonFormat}} {
		b.Run("unmarshal/"+f.name, func(b *testing.B) {
			for b.Loop() {
				var v consentBody
				if err := f.f.Unmarshal(body, &v); err != nil || v.refused != nil {
					b.Fatal(err, v.refused)
				}
			}
		})
		b.Run("marshal/"+f.name, func(b *testing.B) {
			var w bytes.Buffer
			for b.Loop() {
				w.Reset()
				if err := f.f.Marshal(&w, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
