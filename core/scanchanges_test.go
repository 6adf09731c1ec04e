package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

func TestCompareScans(t *testing.T) {
	static, deep := core.ScanStatic, core.ScanDeep
	prev := &scan.Scan{ID: "a", ModeUsed: &deep,
		DetectedServices: []core.DetectedService{{Slug: "hotjar", Name: "Hotjar", Category: "statistics",
			Cookies: []core.ObservedCookie{{Name: "_hjid", Domain: "shop.example", Duration: "1 year"}}}},
		UnrecognizedScripts: []core.UnrecognizedScript{{Src: "https://cdn.old.example/a.js", Domain: "cdn.old.example"}},
		UnrecognizedCookies: []core.UnrecognizedCookie{{Kind: core.StorageLocal, Name: "k", Domain: "shop.example"}},
		PreConsent:          []core.PreConsentFinding{{Slug: "hotjar", Name: "Hotjar", Category: "statistics"}}}
	cur := &scan.Scan{ID: "b", ModeUsed: &deep,
		DetectedServices: []core.DetectedService{{Slug: "hotjar", Name: "Hotjar", Category: "statistics", TrackingIDs: []string{"123"},
			Cookies: []core.ObservedCookie{{Name: "_hjid", Domain: "shop.example", Duration: "session"}}}},
		UnrecognizedScripts: []core.UnrecognizedScript{{Src: "https://cdn.new.example/b.js", Domain: "cdn.new.example"}},
		UnrecognizedCookies: []core.UnrecognizedCookie{{Kind: core.StorageLocal, Name: "k", Domain: "shop.example"}}}
	c := scan.CompareScans(prev, cur, nil, nil)
	if len(c.CookiesChanged) != 1 || *c.CookiesChanged[0].PreviousDuration != "1 year" || c.CookiesChanged[0].Duration != "session" {
		t.Errorf("cookiesChanged = %+v, want _hjid from 1 year to session", c.CookiesChanged)
	}
	if len(c.UnrecognizedScriptsAdded) != 1 || len(c.UnrecognizedScriptsRemoved) != 1 || len(c.UnrecognizedCookiesAdded) != 0 {
		t.Errorf("unrecognized changes = %+v %+v %+v", c.UnrecognizedScriptsAdded, c.UnrecognizedScriptsRemoved, c.UnrecognizedCookiesAdded)
	}
	if len(c.TrackingIDsAdded) != 1 || c.TrackingIDsAdded[0].ID != "123" || len(c.PreConsentRemoved) != 1 || c.Count != 5 {
		t.Errorf("tracking IDs %+v, pre-consent removed %+v, count %d", c.TrackingIDsAdded, c.PreConsentRemoved, c.Count)
	}
	if got := c.Summary(); got != "1 cookie lifetime changed, 1 unrecognized script added, 1 unrecognized script removed, 1 tracking ID added, 1 service no longer acting before consent" {
		t.Errorf("summary = %q", got)
	}
	// Different engines: what only the browser sees is not compared.
	cur.ModeUsed = &static
	if c := scan.CompareScans(prev, cur, nil, nil); !c.Partial || len(c.CookiesChanged)+len(c.PreConsentRemoved) != 0 || c.Count != 3 {
		t.Errorf("partial comparison = %+v", c)
	}
	// The compliance verdict.
	before := &scan.ComplianceReport{Compliant: true}
	after := &scan.ComplianceReport{Compliant: false, Findings: []scan.Finding{{RuleID: "enforcement.after-reject", Severity: scan.SeverityError}}}
	c = scan.CompareScans(prev, prev, before, after)
	if !c.Compliance.Changed() || len(c.Compliance.ErrorsAdded) != 1 || c.Count != 1 || c.Summary() != "no longer compliant" {
		t.Errorf("compliance change = %+v, count %d", c.Compliance, c.Count)
	}
	if got := scan.CompareScans(prev, prev, nil, nil).Summary(); got != "no change" {
		t.Errorf("summary of no change = %q", got)
	}
}
