package library

import "strings"

// Search ranks of a hit, best first.
const (
	rankExactSlug = iota
	rankLabelPrefix
	rankSlugOrLabel
	rankCategory
	rankNamed
	rankDescription
	rankCount
)

// Search returns the services whose slug, label, category, vendor, cookie names or description
// contain q, case-insensitively, best first: the service whose slug is q, then those whose
// label starts with q, then those whose slug or label contains q, then those whose category is
// called q (a word of categoryWords: "analytics" finds the statistics services), then those
// whose vendor or a cookie name contains q, and last those that only mention q in their
// description; ties in slug order.
// An empty (or all-space) q returns every service.
func (c *Catalog) Search(q string) []*Service {
	q = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(q, "\x00", "")))
	if q == "" {
		return c.Services()
	}
	var buckets [rankCount][]*Service
	for i := range c.hay {
		h := &c.hay[i]
		var r int
		switch {
		case h.slug == q:
			r = rankExactSlug
		case strings.HasPrefix(h.label, q):
			r = rankLabelPrefix
		case strings.Contains(h.slug, q) || strings.Contains(h.label, q):
			r = rankSlugOrLabel
		case strings.Contains("\x00"+h.category, "\x00"+q): // a category word starts with q
			r = rankCategory
		case strings.Contains(h.named, q):
			r = rankNamed
		case strings.Contains(h.description, q):
			r = rankDescription
		default:
			continue
		}
		buckets[r] = append(buckets[r], c.services[i])
	}
	n := 0
	for _, b := range buckets {
		n += len(b)
	}
	out := make([]*Service, 0, n)
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}
