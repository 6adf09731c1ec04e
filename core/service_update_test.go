package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

func TestUpdateServiceKeepsIdentityAndEditsCookies(t *testing.T) {
	uc, _, _ := newCore(t)
	org, st := mustSite(t, uc)
	site := st.ID
	res, err := uc.Services.ImportService(ctx, org, site, "stats", "")
	if err != nil {
		t.Fatal(err)
	}
	old := res.Services[0]
	first := old.Cookies[0]
	in := banner.ServiceInput{Label: "GA", CategorySlug: "marketing", Description: "edited",
		Cookies: []banner.CookieInput{{Name: first.Name, Duration: "1 day"}, {Name: "_new", Duration: "session"}}}
	s, err := uc.Services.UpdateService(ctx, org, site, old.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != old.ID || s.Slug != old.Slug || s.Label != "GA" || len(s.Cookies) != 2 || s.Cookies[0].ID != first.ID || s.Cookies[0].Duration != "1 day" {
		t.Fatalf("updated service: %+v", s)
	}
	svcs, err := uc.Services.Services(ctx, org, site)
	if err != nil || len(svcs) != 1 || svcs[0].Description != "edited" || len(svcs[0].Cookies) != 2 {
		t.Fatalf("stored services: %v %+v", err, svcs)
	}
	if _, err := uc.Services.UpdateService(ctx, org, site, old.ID, banner.ServiceInput{Label: "", CategorySlug: "marketing"}); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("empty label: %v", err)
	}
	if _, err := uc.Services.UpdateService(ctx, org, site, old.ID, banner.ServiceInput{Label: "x", CategorySlug: "nope"}); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("unknown category: %v", err)
	}
	if _, err := uc.Services.UpdateService(ctx, "other-org", site, old.ID, in); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("other organization: %v", err)
	}
}
