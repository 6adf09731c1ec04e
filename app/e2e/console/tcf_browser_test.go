package console_test

import (
	"slices"
	"testing"

	"github.com/consentd/consentd/app"
)

// TestConsoleTCF: on a deployment with a CMP ID and the fixture GVL, a site owner finds Google
// Advertising Products by name and adds it, pastes another ID, is told in place when an ID is
// not in the list, removes a vendor, picks the publisher's country, a special feature and the
// first layer's stacks, and saves: the banner's tcf object holds them. The section passes axe-core.
func TestConsoleTCF(t *testing.T) {
	t.Parallel()
	srv := startServer(t, func(c *app.Config) {
		c.TCFGVLFile, c.TCFCMPID, c.TCFCMPVersion = "../../../testdata/tcf/vendor-list-v17.json", 4095, 1
	})
	base := srv.base
	var site struct{ ID string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]string{"name": "Daily News", "url": "https://news.example"}, &site)
	ctx := tab(t)
	navigate(t, ctx, base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/sites/"+site.ID+"/banner")
	mustContain(t, ctx, "IAB TCF for ad-funded sites", "version 17, 692 vendors")

	fill(t, ctx, map[string]string{"#tcf-search": "google advertising"})
	submit(t, ctx, "document.querySelector('#tcf-form button[value=\"search\"]:not([hidden])').click()")
	mustContain(t, ctx, "Google Advertising Products (755)")
	submit(t, ctx, "document.querySelector('button[value=\"add.755\"]').click()")
	mustContain(t, ctx, "Vendor 755 added to the draft: save the TCF settings to apply it.")
	var vendors string
	eval(t, ctx, "document.querySelector('#tcf-vendors').value", &vendors)
	if vendors != "755" {
		t.Fatalf("vendors after adding 755: %q", vendors)
	}

	// TCF on with no vendor and no Additional Consent provider: not saved, the form says why.
	fill(t, ctx, map[string]string{"#tcf-vendors": ""})
	eval(t, ctx, "document.querySelector('#tcf-enabled').checked = true", nil)
	submit(t, ctx, "document.querySelector('#save-tcf').click()")
	mustContain(t, ctx, "TCF needs at least one vendor of the Global Vendor List")
	checkPage(t, ctx, base, "39-tcf-no-vendor")
	var stored struct{ TCF struct{ Enabled bool } }
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &stored)
	if stored.TCF.Enabled {
		t.Fatal("TCF was saved on with no vendor")
	}

	// A pasted ID that is not in the list: not saved, the message names it.
	fill(t, ctx, map[string]string{"#tcf-vendors": "755, 1, 9999"})
	eval(t, ctx, "document.querySelector('#tcf-enabled').checked = true", nil)
	submit(t, ctx, "document.querySelector('#save-tcf').click()")
	mustContain(t, ctx, "Unknown vendor 9999 (not in the Global Vendor List version 17).", "Vendor 9999 is not in the Global Vendor List")
	checkPage(t, ctx, base, "40-tcf-error")
	submit(t, ctx, "document.querySelector('button[value=\"remove.9999\"]').click()")
	mustContain(t, ctx, "Vendor 9999 removed from the draft")

	eval(t, ctx, "document.querySelector('#tcf-country').value = 'FR'; document.querySelector('input[name=\"tcfSpecialFeature\"][value=\"1\"]').checked = true; document.querySelector('#tcf-stacks').checked = true", nil)
	submit(t, ctx, "document.querySelector('#save-tcf').click()")
	mustContain(t, ctx, "TCF settings saved.", "Google Advertising Products (755)")
	var b struct {
		TCF struct {
			Enabled              bool
			VendorIDs            []int `json:"vendorIds"`
			PublisherCountryCode string
			SpecialFeatures      []int
			UseStacks            bool
		}
	}
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &b)
	if !b.TCF.Enabled || !slices.Equal(b.TCF.VendorIDs, []int{755, 1}) || b.TCF.PublisherCountryCode != "FR" || !slices.Equal(b.TCF.SpecialFeatures, []int{1}) || !b.TCF.UseStacks {
		t.Fatalf("stored tcf: %+v", b.TCF)
	}
	eval(t, ctx, "document.querySelector('#tcf').scrollIntoView()", nil)
	checkPage(t, ctx, base, "41-tcf-saved")
}
