package console

import (
	"net/http"
	"strings"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core"
	scanpkg "github.com/consentd/consentd/core/scan"
)

// scansData is the scans page's data.
type scansData struct{ Scans []*scanpkg.Scan }

func (h *handler) scansPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showScans(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showScans(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	scans, err := h.m.Scans(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	if p.Values == nil {
		p.Values = map[string][]string{"urls": {s.URL}}
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Scans · "+s.Name, "sites", "scans", s, scansData{Scans: scans}
	h.render(w, r, rq, status, "scans", p)
}

// triggerScan starts a scan of the URLs entered, one per line (none: the site's homepage).
func (h *handler) triggerScan(w http.ResponseWriter, r *http.Request, rq *request) {
	in := scanpkg.ScanInput{URLs: strings.FieldsFunc(r.PostFormValue("urls"), func(c rune) bool { return c == '\n' || c == '\r' || c == ' ' || c == ',' })}
	if len(in.URLs) == 1 {
		u := in.URLs[0]
		in.URL, in.URLs = &u, nil
	}
	if pw := r.PostFormValue("storefrontPassword"); pw != "" {
		in.StorefrontPassword = &pw
	}
	if mode := r.PostFormValue("mode"); mode != "" {
		in.Mode = &mode // core refuses a mode it does not know
	}
	sc, err := h.m.TriggerScan(r.Context(), rq.org, r.PathValue("id"), in)
	if err != nil {
		status, msg := h.message(r, err)
		form := r.PostForm
		form.Del("storefrontPassword")
		h.showScans(w, r, rq, status, page{Form: "scan", Error: msg, Values: form})
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/scans/"+sc.ID, "")
}

// scanView is the scan page's data.
type scanView struct {
	Scan   *scanpkg.Scan
	OnSite map[string]bool
	// New counts the detected services not yet on the site (what configure would add).
	New  int
	Done bool
}

func (h *handler) scanPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showScan(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showScan(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	sc, err := h.m.Scan(r.Context(), rq.org, s.ID, r.PathValue("scan"))
	if err != nil {
		if core.ErrorCode(err) == core.CodeNotFound {
			h.errorPage(w, r, rq, http.StatusNotFound, "Scan not found", "This scan does not exist. Go back to the site's scans.")
			return
		}
		h.fail(w, r, rq, err)
		return
	}
	v := scanView{Scan: sc, OnSite: map[string]bool{}, Done: sc.Status == scanpkg.ScanCompleted || sc.Status == scanpkg.ScanFailed}
	svcs, err := h.m.Services(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	for _, sv := range svcs {
		v.OnSite[sv.Slug] = true
	}
	for _, d := range sc.DetectedServices {
		if !v.OnSite[d.Slug] {
			v.New++
		}
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Scan · "+s.Name, "sites", "scans", s, v
	h.render(w, r, rq, status, "scan", p)
}

func (h *handler) configureScan(w http.ResponseWriter, r *http.Request, rq *request) {
	site, scan := r.PathValue("id"), r.PathValue("scan")
	res, err := h.m.ConfigureScan(r.Context(), rq.org, site, scan)
	if err != nil {
		status, msg := h.message(r, err)
		h.showScan(w, r, rq, status, page{Form: "configure", Error: msg})
		return
	}
	msg := "Nothing new to configure: every detected service is already on the site."
	if n := len(res.Services); n > 0 {
		var names []string
		for _, s := range res.Services {
			names = append(names, s.Label)
		}
		msg = textfmt.Plural(n, "service", "services") + " added (" + strings.Join(names, ", ") + ") with " +
			textfmt.Plural(res.BlockingRulesAdded, "blocking rule", "blocking rules") + "."
	}
	h.redirect(w, r, rq, "/sites/"+site+"/services", msg)
}
