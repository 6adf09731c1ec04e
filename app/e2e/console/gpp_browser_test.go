package console_test

import (
	"testing"
)

// TestConsoleGPP: the banner page has a GPP section beside the TCF's, with core's approaches
// and MSPA modes; a site owner turns the GPP on with the National Approach as an MSPA signatory
// in Service Provider Mode and saves: the banner's gpp object holds it, and the page, reloaded,
// shows it. A forged value is refused with core's message, in place, and nothing is stored.
// The section passes axe-core.
func TestConsoleGPP(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var site struct{ ID string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]string{"name": "Daily News US", "url": "https://news.example"}, &site)
	ctx := tab(t)
	navigate(t, ctx, base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/sites/"+site.ID+"/banner")
	mustContain(t, ctx, "IAB Global Privacy Platform (GPP)", "Both (default)", "National", "State by state", "Opt-Out Option Mode", "Service Provider Mode")
	var checked string
	eval(t, ctx, "document.querySelector('input[name=gppApproach]:checked').value + ' ' + document.querySelector('input[name=gppMspaMode]:checked').value + ' ' + document.querySelector('#gpp-enabled').checked", &checked)
	if checked != "both opt-out false" {
		t.Fatalf("a new site's GPP section shows %q, want the defaults both, opt-out, off", checked)
	}

	// A forged approach: core refuses it, the section says why, nothing is stored.
	eval(t, ctx, "document.querySelector('#gpp-enabled').checked = true; document.querySelector('input[name=gppApproach][value=national]').value = 'federal'; document.querySelector('input[name=gppApproach][value=federal]').checked = true", nil)
	submit(t, ctx, "document.querySelector('#save-gpp').click()")
	mustContain(t, ctx, "Not saved: The US sections (GPP) must be one of")
	var stored struct{ GPP struct{ Enabled bool } }
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &stored)
	if stored.GPP.Enabled {
		t.Fatal("a refused GPP form was stored")
	}

	eval(t, ctx, `document.querySelector('#gpp-enabled').checked = true;
document.querySelector('input[name=gppApproach][value=national]').checked = true;
document.querySelector('#gpp-mspa').checked = true;
document.querySelector('input[name=gppMspaMode][value="service-provider"]').checked = true`, nil)
	submit(t, ctx, "document.querySelector('#save-gpp').click()")
	mustContain(t, ctx, "GPP settings saved.")
	var b struct {
		GPP struct {
			Enabled                bool
			MSPACoveredTransaction bool `json:"mspaCoveredTransaction"`
			MSPAMode               string
			Approach               string
		}
	}
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &b)
	if !b.GPP.Enabled || !b.GPP.MSPACoveredTransaction || b.GPP.MSPAMode != "service-provider" || b.GPP.Approach != "national" {
		t.Fatalf("stored gpp: %+v", b.GPP)
	}
	eval(t, ctx, "document.querySelector('input[name=gppApproach]:checked').value + ' ' + document.querySelector('input[name=gppMspaMode]:checked').value + ' ' + document.querySelector('#gpp-enabled').checked", &checked)
	if checked != "national service-provider true" {
		t.Errorf("after saving the section shows %q", checked)
	}
	eval(t, ctx, "document.querySelector('#gpp').scrollIntoView()", nil)
	checkPage(t, ctx, base, "42-gpp-saved")
}
