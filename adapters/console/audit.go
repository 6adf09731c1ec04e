package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// auditView is the audit log page's data.
type auditView struct {
	Entries []auditRow
	Action  string
	Site    string
	Actions []string
	Sites   []*core.Site
	Next    string
	Deep    bool
	Query   string
	Report  *identity.AuditReport
}

// auditRow is an entry as the page shows it: the site by name, each change's values as text.
type auditRow struct {
	*core.AuditEntry
	SiteName string
	Changes  []auditChange
}

type auditChange struct{ Field, Old, New string }

// auditPage lists the organization's audit log, newest first, with filters and the chain's
// verification (?verify=1).
func (h *handler) auditPage(w http.ResponseWriter, r *http.Request, rq *request) {
	q := r.URL.Query()
	v := auditView{Action: q.Get("action"), Site: q.Get("site"), Actions: core.AuditActions(), Deep: q.Get("cursor") != ""}
	p, err := h.m.AuditEntries(r.Context(), rq.org, identity.AuditQuery{Action: v.Action, SiteID: v.Site, Limit: 25}, q.Get("cursor"))
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	names := map[string]string{}
	if sites, err := h.m.Sites(r.Context(), rq.org); err == nil {
		v.Sites = sites
		for _, s := range sites {
			names[s.ID] = s.Name
		}
	}
	for _, e := range p.Entries {
		row := auditRow{AuditEntry: e, SiteName: names[e.SiteID]}
		if row.SiteName == "" && e.SiteID != "" {
			row.SiteName = "deleted site"
		}
		for _, c := range e.Changes {
			row.Changes = append(row.Changes, auditChanges(c.Field, c.Old, c.New)...)
		}
		v.Entries = append(v.Entries, row)
	}
	v.Next = p.NextCursor
	qs := url.Values{}
	if v.Action != "" {
		qs.Set("action", v.Action)
	}
	if v.Site != "" {
		qs.Set("site", v.Site)
	}
	v.Query = qs.Encode()
	if q.Get("verify") == "1" {
		if v.Report, err = h.m.VerifyAuditLog(r.Context(), rq.org); err != nil {
			h.fail(w, r, rq, err)
			return
		}
	}
	h.render(w, r, rq, http.StatusOK, "audit", page{Title: "Audit log", Section: "audit", Data: v})
}

// auditChanges shows a change as rows of field, old value and new value. A nested value (an
// object, a list of objects: a banner's regional rules) is one row per leaf that differs, its
// path in words ("Rules › 2 › Regions"), a list of plain values as one comma-separated value,
// so that the log never shows raw JSON running past the table's edge.
func auditChanges(field string, old, new json.RawMessage) []auditChange {
	o, okO := decodeJSON(old)
	n, okN := decodeJSON(new)
	if !okO || !okN || (!composite(o) && !composite(n)) {
		return []auditChange{{Field: human(field), Old: auditText(old), New: auditText(new)}}
	}
	before, after := map[string]string{}, map[string]string{}
	var order []string
	flattenJSON(human(field), o, before, &order)
	flattenJSON(human(field), n, after, &order)
	var out []auditChange
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
		out = append(out, auditChange{Field: p, Old: b, New: a})
	}
	if len(out) == 0 {
		return []auditChange{{Field: human(field), Old: "(the same)", New: "(the same)"}}
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
func flattenJSON(path string, v any, out map[string]string, order *[]string) {
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
			flattenJSON(path+" › "+human(k), v[k], out, order)
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
			flattenJSON(path+" › "+strconv.Itoa(i+1), e, out, order)
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

// auditText shows a JSON value in words: a string as it is, null as "—", the rest as JSON.
func auditText(v json.RawMessage) string {
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
