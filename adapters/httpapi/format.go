package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core/consent"
)

// jsonFormat is huma's JSON format (huma.DefaultJSONFormat: encoding/json, no HTML escaping)
// with two shortcuts for the public consent POST, the request every visitor's decision makes,
// each giving exactly the bytes and errors encoding/json gives (TestJSONFormatAsDefault):
//
//   - a body that checks and decodes itself (consentBody) is handed to its UnmarshalJSON
//     after one validity scan, where json.Unmarshal scans it twice and reflects on it first;
//     invalid JSON still goes through json.Unmarshal, for its error;
//   - the receipt is written by appendReceipt, without reflection, whenever its strings need
//     no escaping and its time is one encoding/json accepts; otherwise by encoding/json.
//
// BenchmarkJSONFormat shows the difference.
var jsonFormat = huma.Format{
	Marshal: func(w io.Writer, v any) error {
		if r, ok := v.(*consent.ConsentReceipt); ok && r != nil {
			bp := receiptBufs.Get().(*[]byte)
			defer receiptBufs.Put(bp)
			if b, ok := appendReceipt((*bp)[:0], r); ok {
				*bp = b
				_, err := w.Write(append(b, '\n'))
				return err
			}
		}
		return huma.DefaultJSONFormat.Marshal(w, v)
	},
	Unmarshal: func(data []byte, v any) error {
		if b, ok := v.(*consentBody); ok && json.Valid(data) {
			// json.Unmarshal hands an Unmarshaler the value without the whitespace around it.
			return b.UnmarshalJSON(bytes.Trim(data, " \t\r\n"))
		}
		return json.Unmarshal(data, v)
	},
}

var receiptBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendReceipt appends r as encoding/json encodes it, and reports false, leaving the caller
// to encoding/json, when a string would need escaping or the time is one that
// time.Time.MarshalJSON refuses or that RFC 3339 cannot carry exactly.
func appendReceipt(b []byte, r *consent.ConsentReceipt) ([]byte, bool) {
	if !plainJSON(r.ID) || !plainJSON(r.VisitorID) || !plainJSON(r.RecordHash) || !plainJSON(r.SnapshotHash) {
		return b, false
	}
	if y := r.CreatedAt.Year(); y < 0 || y > 9999 {
		return b, false
	}
	if _, off := r.CreatedAt.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return b, false
	}
	b = append(b, `{"id":"`...)
	b = append(b, r.ID...)
	b = append(b, `","visitorId":"`...)
	b = append(b, r.VisitorID...)
	b = append(b, `","recordHash":"`...)
	b = append(b, r.RecordHash...)
	b = append(b, `","snapshotHash":"`...)
	b = append(b, r.SnapshotHash...)
	b = append(b, `","createdAt":"`...)
	b = r.CreatedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `"}`...)
	return b, true
}

// plainJSON reports whether encoding/json writes s as it is between quotes: printable ASCII
// without '"' and '\\' (HTML characters are not escaped by huma's encoder).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
