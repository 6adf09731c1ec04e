// Package auditview shows the audit log's changes to people: each change as rows of field,
// old value and new value in words, a nested value (an object, a list of objects) as one row
// per leaf that differs. The console's audit log reads it; it is a leaf (no adapter imports
// another adapter).
package auditview

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Row is a change as a row: the field (its path in words for a nested value), the old value
// and the new one.
type Row struct{ Field, Old, New string }

// Rows shows a change as rows of field, old value and new value. A nested value (an
// object, a list of objects: a banner's regional rules) is one row per leaf that differs, its
// path in words ("Rules › 2 › Regions"), a list of plain values as one comma-separated value,
// so that the log never shows raw JSON running past the table's edge.
func Rows(field string, old, new json.RawMessage, name func(string) string) []Row {
	o, okO := decodeJSON(old)
	n, okN := decodeJSON(new)
	if !okO || !okN || (!composite(o) && !composite(n)) {
		return []Row{{Field: name(field), Old: Text(old), New: Text(new)}}
	}
	before, after := map[string]string{}, map[string]string{}
	var order []string
	flattenJSON(name(field), o, before, &order, name)
	flattenJSON(name(field), n, after, &order, name)
	var out []Row
	seen := map[string]bool{}
	for _, p := range order {
		if seen[p] {
			continue
		}
		seen[p] = true
		b, okB := before[p]
		a, okA := after[p]
		if b == a && okB == okA {
			continue
		}
		if !okB {
			b = "—"
		}
		if !okA {
			a = "—"
		}
		out = append(out, Row{Field: p, Old: b, New: a})
	}
	if len(out) == 0 {
		return []Row{{Field: name(field), Old: "(the same)", New: "(the same)"}}
	}
	return out
}

func decodeJSON(v json.RawMessage) (any, bool) {
	if len(v) == 0 {
		return nil, true
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var out any
	return out, d.Decode(&out) == nil
}

// composite reports whether v is an object or a list.
func composite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// nested reports whether v is an object, or a list holding objects or lists.
func nested(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return true
	case []any:
		for _, e := range v {
			switch e.(type) {
			case map[string]any, []any:
				return true
			}
		}
	}
	return false
}

// flattenJSON writes v's leaves into out by their path in words, recording the paths' order.
func flattenJSON(path string, v any, out map[string]string, order *[]string, name func(string) string) {
	put := func(s string) {
		out[path] = s
		*order = append(*order, path)
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flattenJSON(path+" › "+name(k), v[k], out, order, name)
		}
		if len(keys) == 0 {
			put("(none)")
		}
	case []any:
		if !nested(v) {
			words := make([]string, len(v))
			for i, e := range v {
				words[i] = scalarText(e)
			}
			if len(words) == 0 {
				put("(none)")
			} else {
				put(strings.Join(words, ", "))
			}
			return
		}
		for i, e := range v {
			flattenJSON(path+" › "+strconv.Itoa(i+1), e, out, order, name)
		}
	default:
		put(scalarText(v))
	}
}

// scalarText is a plain JSON value in words.
func scalarText(v any) string {
	switch v := v.(type) {
	case nil:
		return "—"
	case string:
		if v == "" {
			return "(empty)"
		}
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case json.Number:
		return v.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Text shows a JSON value in words: a string as it is, null as "—", the rest as JSON.
func Text(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s == "" {
			return "(empty)"
		}
		return s
	}
	if string(v) == "null" || len(v) == 0 {
		return "—"
	}
	var t time.Time
	if json.Unmarshal(v, &t) == nil {
		return t.UTC().Format("2 Jan 2006, 15:04 UTC")
	}
	out := string(v)
	if len(out) > 300 {
		out = out[:300] + "…"
	}
	return strings.TrimSpace(out)
}
