package scan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// ScanChanges is what a completed scan found different from the previous completed scan of the
// same site and mode: what appeared and what went away. A renamed cookie is a removed cookie
// and an added one. Every list is present, empty when nothing changed there.
type ScanChanges struct {
	// PreviousScanID is the scan compared with, PreviousFinishedAt when it finished.
	PreviousScanID     string     `json:"previousScanId"`
	PreviousFinishedAt *time.Time `json:"previousFinishedAt"`
	// Partial is true when the two scans ran different engines (static and deep): cookies,
	// unrecognized cookies and pre-consent findings, which the static engine sees only in
	// part, are then not compared and their lists stay empty.
	Partial bool `json:"partial"`
	// Count is the number of entries in all the lists, plus one when the compliance verdict
	// changed: 0 when nothing changed.
	Count           int              `json:"count"`
	ServicesAdded   []ChangedService `json:"servicesAdded"`
	ServicesRemoved []ChangedService `json:"servicesRemoved"`
	// CookiesAdded and CookiesRemoved are the cookies of detected services; CookiesChanged
	// those seen in both scans whose observed lifetime differs (Previous* hold the old one).
	CookiesAdded   []ChangedCookie `json:"cookiesAdded"`
	CookiesRemoved []ChangedCookie `json:"cookiesRemoved"`
	CookiesChanged []ChangedCookie `json:"cookiesChanged"`
	// UnrecognizedScripts* are third-party scripts no service claims, by src.
	UnrecognizedScriptsAdded   []ChangedScript `json:"unrecognizedScriptsAdded"`
	UnrecognizedScriptsRemoved []ChangedScript `json:"unrecognizedScriptsRemoved"`
	// UnrecognizedCookies* are cookies and storage keys no service claims (deep scans).
	UnrecognizedCookiesAdded   []ChangedCookie `json:"unrecognizedCookiesAdded"`
	UnrecognizedCookiesRemoved []ChangedCookie `json:"unrecognizedCookiesRemoved"`
	TrackingIDsAdded           []ChangedID     `json:"trackingIdsAdded"`
	TrackingIDsRemoved         []ChangedID     `json:"trackingIdsRemoved"`
	// PreConsent* are services that started, or stopped, acting before consent.
	PreConsentAdded   []ChangedService `json:"preConsentAdded"`
	PreConsentRemoved []ChangedService `json:"preConsentRemoved"`
	// Compliance is the compliance verdict before and after a verification scan (the site's
	// current configuration judged with the previous and with this scan's observations);
	// null for the other modes.
	Compliance *ComplianceChange `json:"compliance"`
}

// ChangedService names a service in a change list.
type ChangedService struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// ChangedCookie is a cookie (or storage key) in a change list.
type ChangedCookie struct {
	// Service is the slug of the detected service the cookie belongs to; empty for an
	// unrecognized cookie.
	Service string `json:"service"`
	// Kind is cookie, localStorage or sessionStorage.
	Kind          string `json:"kind" enum:"cookie,localStorage,sessionStorage"`
	Name          string `json:"name"`
	Domain        string `json:"domain"`
	Duration      string `json:"duration"`
	MaxAgeSeconds int64  `json:"maxAgeSeconds"`
	// PreviousDuration and PreviousMaxAgeSeconds are the lifetime the previous scan observed,
	// for a cookie whose lifetime changed; null otherwise.
	PreviousDuration      *string `json:"previousDuration"`
	PreviousMaxAgeSeconds *int64  `json:"previousMaxAgeSeconds"`
}

// ChangedScript is an unrecognized script in a change list.
type ChangedScript struct {
	Src    string `json:"src"`
	Domain string `json:"domain"`
}

// ChangedID is a tracking ID (a measurement ID, a pixel ID) of a service in a change list.
type ChangedID struct {
	Service string `json:"service"`
	ID      string `json:"id"`
}

// ComplianceChange is a verification scan's effect on the compliance verdict.
type ComplianceChange struct {
	PreviousCompliant bool `json:"previousCompliant"`
	Compliant         bool `json:"compliant"`
	// ErrorsAdded and ErrorsRemoved are the rule IDs with error findings now and not before,
	// and before and not now.
	ErrorsAdded   []string `json:"errorsAdded"`
	ErrorsRemoved []string `json:"errorsRemoved"`
}

// Changed reports whether the verdict itself changed.
func (c *ComplianceChange) Changed() bool { return c != nil && c.PreviousCompliant != c.Compliant }

// Summary says in a few words what changed ("1 service added, 2 cookies added"), for
// timelines, digests and notifications; "no change" when nothing did.
func (c *ScanChanges) Summary() string {
	if c == nil {
		return "first scan"
	}
	var parts []string
	add := func(n int, one, many, what string) {
		if n > 0 {
			word := many
			if n == 1 {
				word = one
			}
			parts = append(parts, fmt.Sprintf("%d %s %s", n, word, what))
		}
	}
	add(len(c.ServicesAdded), "service", "services", "added")
	add(len(c.ServicesRemoved), "service", "services", "removed")
	add(len(c.CookiesAdded)+len(c.UnrecognizedCookiesAdded), "cookie", "cookies", "added")
	add(len(c.CookiesRemoved)+len(c.UnrecognizedCookiesRemoved), "cookie", "cookies", "removed")
	add(len(c.CookiesChanged), "cookie lifetime", "cookie lifetimes", "changed")
	add(len(c.UnrecognizedScriptsAdded), "unrecognized script", "unrecognized scripts", "added")
	add(len(c.UnrecognizedScriptsRemoved), "unrecognized script", "unrecognized scripts", "removed")
	add(len(c.TrackingIDsAdded), "tracking ID", "tracking IDs", "added")
	add(len(c.TrackingIDsRemoved), "tracking ID", "tracking IDs", "removed")
	add(len(c.PreConsentAdded), "service", "services", "now acting before consent")
	add(len(c.PreConsentRemoved), "service", "services", "no longer acting before consent")
	if c.Compliance.Changed() {
		if c.Compliance.Compliant {
			parts = append(parts, "now compliant")
		} else {
			parts = append(parts, "no longer compliant")
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// CompareScans computes what changed from prev to cur, two completed scans of the same site
// and mode. prevReport and curReport are the compliance reports of a verification scan (nil
// for other modes).
func CompareScans(prev, cur *Scan, prevReport, curReport *ComplianceReport) *ScanChanges {
	c := &ScanChanges{PreviousScanID: prev.ID, PreviousFinishedAt: prev.FinishedAt}
	c.Partial = prev.ModeUsed != nil && cur.ModeUsed != nil && *prev.ModeUsed != *cur.ModeUsed

	services := func(ds []core.DetectedService) map[string]ChangedService {
		m := map[string]ChangedService{}
		for _, d := range ds {
			m[d.Slug] = ChangedService{Slug: d.Slug, Name: d.Name, Category: d.Category}
		}
		return m
	}
	c.ServicesAdded, c.ServicesRemoved = diffKeys(services(prev.DetectedServices), services(cur.DetectedServices), cmpService)

	ids := func(ds []core.DetectedService) map[string]ChangedID {
		m := map[string]ChangedID{}
		for _, d := range ds {
			for _, id := range d.TrackingIDs {
				m[d.Slug+"\x00"+id] = ChangedID{Service: d.Slug, ID: id}
			}
		}
		return m
	}
	c.TrackingIDsAdded, c.TrackingIDsRemoved = diffKeys(ids(prev.DetectedServices), ids(cur.DetectedServices), func(a, b ChangedID) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.ID, b.ID))
	})

	scripts := func(us []core.UnrecognizedScript) map[string]ChangedScript {
		m := map[string]ChangedScript{}
		for _, u := range us {
			m[u.Src] = ChangedScript{Src: u.Src, Domain: u.Domain}
		}
		return m
	}
	c.UnrecognizedScriptsAdded, c.UnrecognizedScriptsRemoved = diffKeys(scripts(prev.UnrecognizedScripts), scripts(cur.UnrecognizedScripts),
		func(a, b ChangedScript) int { return cmp.Compare(a.Src, b.Src) })

	if !c.Partial {
		before, after := serviceCookies(prev.DetectedServices), serviceCookies(cur.DetectedServices)
		c.CookiesAdded, c.CookiesRemoved = diffKeys(before, after, cmpCookie)
		c.CookiesChanged = changedLifetimes(before, after)
		ub, ua := unrecognizedCookies(prev.UnrecognizedCookies), unrecognizedCookies(cur.UnrecognizedCookies)
		c.UnrecognizedCookiesAdded, c.UnrecognizedCookiesRemoved = diffKeys(ub, ua, cmpCookie)
		pre := func(ps []core.PreConsentFinding) map[string]ChangedService {
			m := map[string]ChangedService{}
			for _, p := range ps {
				m[p.Slug] = ChangedService{Slug: p.Slug, Name: p.Name, Category: p.Category}
			}
			return m
		}
		c.PreConsentAdded, c.PreConsentRemoved = diffKeys(pre(prev.PreConsent), pre(cur.PreConsent), cmpService)
	} else {
		c.CookiesAdded, c.CookiesRemoved, c.CookiesChanged = []ChangedCookie{}, []ChangedCookie{}, []ChangedCookie{}
		c.UnrecognizedCookiesAdded, c.UnrecognizedCookiesRemoved = []ChangedCookie{}, []ChangedCookie{}
		c.PreConsentAdded, c.PreConsentRemoved = []ChangedService{}, []ChangedService{}
	}

	if prevReport != nil && curReport != nil {
		errs := func(r *ComplianceReport) map[string]string {
			m := map[string]string{}
			for _, f := range r.Findings {
				if f.Severity == SeverityError {
					m[f.RuleID] = f.RuleID
				}
			}
			return m
		}
		cc := &ComplianceChange{PreviousCompliant: prevReport.Compliant, Compliant: curReport.Compliant}
		cc.ErrorsAdded, cc.ErrorsRemoved = diffKeys(errs(prevReport), errs(curReport), strings.Compare)
		c.Compliance = cc
	}

	c.Count = len(c.ServicesAdded) + len(c.ServicesRemoved) + len(c.CookiesAdded) + len(c.CookiesRemoved) +
		len(c.CookiesChanged) + len(c.UnrecognizedScriptsAdded) + len(c.UnrecognizedScriptsRemoved) +
		len(c.UnrecognizedCookiesAdded) + len(c.UnrecognizedCookiesRemoved) + len(c.TrackingIDsAdded) +
		len(c.TrackingIDsRemoved) + len(c.PreConsentAdded) + len(c.PreConsentRemoved)
	if c.Compliance.Changed() {
		c.Count++
	}
	return c
}

func cmpService(a, b ChangedService) int { return cmp.Compare(a.Slug, b.Slug) }

func cmpCookie(a, b ChangedCookie) int {
	return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Domain, b.Domain))
}

// serviceCookies indexes the detected services' cookies by service, name and domain: a cookie
// that moved to another domain or another service counts as removed and added.
func serviceCookies(ds []core.DetectedService) map[string]ChangedCookie {
	m := map[string]ChangedCookie{}
	for _, d := range ds {
		for _, o := range d.Cookies {
			k := ChangedCookie{Service: d.Slug, Kind: core.StorageCookie, Name: o.Name, Domain: o.Domain, Duration: o.Duration, MaxAgeSeconds: o.MaxAgeSeconds}
			m[cookieKey(k)] = k
		}
	}
	return m
}

func unrecognizedCookies(us []core.UnrecognizedCookie) map[string]ChangedCookie {
	m := map[string]ChangedCookie{}
	for _, u := range us {
		k := ChangedCookie{Kind: cmp.Or(u.Kind, core.StorageCookie), Name: u.Name, Domain: u.Domain, Duration: u.Duration, MaxAgeSeconds: u.MaxAgeSeconds}
		m[cookieKey(k)] = k
	}
	return m
}

func cookieKey(c ChangedCookie) string {
	return c.Service + "\x00" + c.Kind + "\x00" + c.Name + "\x00" + c.Domain
}

// changedLifetimes lists the cookies of both scans whose observed lifetime, in words, differs:
// words rather than seconds, since a cookie with an Expires date is a few seconds younger at
// each visit.
func changedLifetimes(before, after map[string]ChangedCookie) []ChangedCookie {
	out := []ChangedCookie{}
	for k, a := range after {
		b, ok := before[k]
		if !ok || b.Duration == a.Duration {
			continue
		}
		d, s := b.Duration, b.MaxAgeSeconds
		a.PreviousDuration, a.PreviousMaxAgeSeconds = &d, &s
		out = append(out, a)
	}
	slices.SortFunc(out, cmpCookie)
	return out
}

// diffKeys returns the values of after whose key before lacks, and those of before whose key
// after lacks, each sorted by less.
func diffKeys[T any](before, after map[string]T, compare func(a, b T) int) (added, removed []T) {
	added, removed = []T{}, []T{}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			added = append(added, v)
		}
	}
	for k, v := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, v)
		}
	}
	slices.SortFunc(added, compare)
	slices.SortFunc(removed, compare)
	return added, removed
}
