package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/adapters/console/adforms"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/tcf"
)

// The banner page's TCF section (docs/tcf.md): turn the IAB TCF on, pick the site's vendors
// from the GVL in use (search by name or ID, or paste IDs), the publisher's country, the
// special features, Google's Additional Consent providers and whether the first layer shows the
// IAB's stacks. It is a form of its own, saved
// apart from the banner: the publisher restrictions, which only the API sets, are kept.

// maxVendorResults bounds a vendor search's results on the page.
const maxVendorResults = 20

// tcfSection is the TCF section's data.
type tcfSection struct {
	// CMPID is the deployment's CMP ID (0: TCF cannot be turned on); GVL the list in use
	// (nil: none is loaded yet).
	CMPID int
	GVL   *tcf.GVL
	Form  tcfForm
	// Chosen are the draft's vendors as the GVL names them; Results the search's.
	Chosen, Results []vendorRow
	// Searched says a search ran (to say when it found nothing).
	Searched  bool
	Countries []place
	// SpecialFeatures are the GVL's, by ID, checked when the draft asks for them.
	SpecialFeatures []specialFeature
}

// specialFeature is a special feature of the GVL in the section.
type specialFeature struct {
	tcf.GVLPurpose
	Checked bool
}

// vendorRow is a vendor in the section: its ID, its name and its purposes under consent;
// Unknown for an ID the GVL does not have.
type vendorRow struct {
	ID       int
	Name     string
	Purposes string
	Unknown  bool
}

// tcfForm is the section's draft, as typed.
type tcfForm struct {
	Enabled         bool
	VendorIDs       string
	Country         string
	SpecialFeatures []int
	ATPs            string
	UseStacks       bool
	Query           string
}

// ids reads IDs as typed (adforms.IDs).
var ids = adforms.IDs

func tcfFormOf(t tcf.TCFSettings) tcfForm {
	join := func(ids []int) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.Itoa(id)
		}
		return strings.Join(s, ", ")
	}
	return tcfForm{Enabled: t.Enabled, VendorIDs: join(t.VendorIDs), Country: t.PublisherCountryCode,
		SpecialFeatures: slices.Clone(t.SpecialFeatures), ATPs: join(t.GoogleATPIDs), UseStacks: t.UseStacks}
}

func parseTCFForm(r *http.Request) tcfForm {
	f := tcfForm{Enabled: r.PostFormValue("tcfEnabled") == "on", VendorIDs: r.PostFormValue("tcfVendorIds"),
		Country: r.PostFormValue("tcfCountry"), ATPs: r.PostFormValue("tcfAtpIds"), UseStacks: r.PostFormValue("tcfUseStacks") == "on", Query: strings.TrimSpace(r.PostFormValue("tcfQuery"))}
	for _, v := range r.PostForm["tcfSpecialFeature"] {
		if n, err := strconv.Atoi(v); err == nil {
			f.SpecialFeatures = append(f.SpecialFeatures, n)
		}
	}
	return f
}

// settings is the change the form asks for, keeping the stored restrictions.
func (f tcfForm) settings(stored tcf.TCFSettings) (tcf.TCFSettings, error) {
	vendors, err := ids("Vendors", f.VendorIDs)
	if err != nil {
		return tcf.TCFSettings{}, err
	}
	atps, err := ids("Google Additional Consent providers", f.ATPs)
	if err != nil {
		return tcf.TCFSettings{}, err
	}
	return tcf.TCFSettings{Enabled: f.Enabled, VendorIDs: vendors, PublisherCountryCode: f.Country, SpecialFeatures: f.SpecialFeatures,
		PublisherRestrictions: stored.PublisherRestrictions, GoogleATPIDs: atps, UseStacks: f.UseStacks}, nil
}

// edit applies a button of the section to the draft: add.ID or remove.ID.
func (f *tcfForm) edit(action string) (string, error) {
	verb, arg, _ := strings.Cut(action, ".")
	id, err := strconv.Atoi(arg)
	if err != nil {
		return "", core.Errorf(core.CodeInvalid, "unknown action %q", action)
	}
	current, err := ids("Vendors", f.VendorIDs)
	if err != nil {
		return "", err
	}
	switch verb {
	case "add":
		if !slices.Contains(current, id) {
			current = append(current, id)
		}
	case "remove":
		current = slices.DeleteFunc(current, func(v int) bool { return v == id })
	default:
		return "", core.Errorf(core.CodeInvalid, "unknown action %q", action)
	}
	f.VendorIDs = tcfFormOf(tcf.TCFSettings{VendorIDs: current}).VendorIDs
	if verb == "add" {
		return "Vendor " + arg + " added to the draft", nil
	}
	return "Vendor " + arg + " removed from the draft", nil
}

func row(g *tcf.GVL, id int) vendorRow {
	v, ok := g.Vendors[id]
	if !ok {
		return vendorRow{ID: id, Unknown: true}
	}
	ps := make([]string, len(v.Purposes))
	for i, p := range v.Purposes {
		ps[i] = strconv.Itoa(p)
	}
	return vendorRow{ID: id, Name: v.Name, Purposes: strings.Join(ps, ", ")}
}

// tcfSectionFor builds the section for the draft f.
func (h *handler) tcfSectionFor(r *http.Request, f tcfForm) (tcfSection, error) {
	c, err := h.m.TCFChoices(r.Context())
	if err != nil {
		return tcfSection{}, err
	}
	s := tcfSection{CMPID: c.CMPID, GVL: c.GVL, Form: f, Countries: countries()}
	if c.GVL == nil {
		return s, nil
	}
	if vs, err := ids("Vendors", f.VendorIDs); err == nil {
		for _, id := range vs {
			s.Chosen = append(s.Chosen, row(c.GVL, id))
		}
	}
	if f.Query != "" {
		s.Searched = true
		for _, v := range c.GVL.SearchVendors(f.Query, maxVendorResults) {
			s.Results = append(s.Results, row(c.GVL, v.ID))
		}
	}
	for _, id := range sortedIDs(c.GVL.SpecialFeatures) {
		s.SpecialFeatures = append(s.SpecialFeatures, specialFeature{c.GVL.SpecialFeatures[id], slices.Contains(f.SpecialFeatures, id)})
	}
	return s, nil
}

func sortedIDs[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// countries are the places of the preview that are countries.
func countries() []place {
	var out []place
	for _, p := range places() {
		if p.Group == placeGroups[0] {
			out = append(out, p)
		}
	}
	return out
}

// saveTCF saves the section, or applies one of its buttons (search, add, remove) to the draft.
func (h *handler) saveTCF(w http.ResponseWriter, r *http.Request, rq *request) {
	f := parseTCFForm(r)
	action := r.PostFormValue("tcfAction")
	switch {
	case action == "search":
		h.showBanner(w, r, rq, http.StatusOK, page{}, nil, &f)
		return
	case action != "" && action != "save":
		done, err := f.edit(action)
		if err != nil {
			status, msg := h.message(r, err)
			h.showBanner(w, r, rq, status, page{Form: "tcf", Error: msg}, nil, &f)
			return
		}
		h.showBanner(w, r, rq, http.StatusOK, page{Flash: done + ": save the TCF settings to apply it."}, nil, &f)
		return
	}
	b, err := h.m.Banner(r.Context(), rq.org, r.PathValue("id"))
	if err == nil {
		var s tcf.TCFSettings
		if s, err = f.settings(b.TCF); err == nil {
			_, err = h.m.PatchBanner(r.Context(), rq.org, r.PathValue("id"), banner.BannerPatch{TCF: &s})
		}
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showBanner(w, r, rq, status, page{Form: "tcf", Error: msg}, nil, &f)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/banner#tcf", "TCF settings saved.")
}

// saveGPP saves the GPP section (adforms.ParseGPP), beside the TCF's; core checks and audits it.
func (h *handler) saveGPP(w http.ResponseWriter, r *http.Request, rq *request) {
	s := adforms.ParseGPP(r)
	if _, err := h.m.PatchBanner(r.Context(), rq.org, r.PathValue("id"), banner.BannerPatch{GPP: &s}); err != nil {
		status, msg := h.message(r, err)
		h.showBanner(w, r, rq, status, page{Form: "gpp", Error: msg}, nil, nil)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/banner#gpp", "GPP settings saved.")
}
