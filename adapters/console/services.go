package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/library"
)

// catalogPage is the categories and services page's data: each category with its services.
type catalogPage struct {
	Groups   []group
	Services int
}

type group struct {
	Category *banner.Category
	// Languages are the category's translated languages, sorted.
	Languages []string
	Services  []*banner.Service
	First     bool
	Last      bool
}

func (h *handler) servicesPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showServices(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showServices(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	cats, err := h.m.Categories(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	svcs, err := h.m.Services(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	d := catalogPage{Services: len(svcs)}
	for i, c := range cats {
		g := group{Category: c, First: i == 0, Last: i == len(cats)-1}
		for l := range c.NameTranslations {
			g.Languages = append(g.Languages, l)
		}
		for l := range c.DescriptionTranslations {
			if c.NameTranslations[l] == "" {
				g.Languages = append(g.Languages, l)
			}
		}
		slices.Sort(g.Languages)
		for _, sv := range svcs {
			if sv.CategoryID == c.ID {
				g.Services = append(g.Services, sv)
			}
		}
		d.Groups = append(d.Groups, g)
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Categories and services · "+s.Name, "sites", "services", s, d
	h.render(w, r, rq, status, "services", p)
}

func (h *handler) createCategory(w http.ResponseWriter, r *http.Request, rq *request) {
	name, desc := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("description"))
	c, err := h.m.CreateCategory(r.Context(), rq.org, r.PathValue("id"), banner.CategoryInput{Name: &name, Description: &desc})
	if err != nil {
		status, msg := h.message(r, err)
		h.showServices(w, r, rq, status, page{Form: "category", Error: msg, Values: r.PostForm})
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/services#cat-"+c.Slug, "Category “"+c.Name+"” added. Visitors will be asked again about it.")
}

// translationRows reads an editor's translation rows: lang.N with name.N and
// description.N; a row without a language, or with neither text, is dropped.
func translationRows(r *http.Request) (names, descs map[string]string, err error) {
	names, descs = map[string]string{}, map[string]string{}
	for i := range len(r.PostForm["lang"]) {
		n := strconv.Itoa(i)
		l := strings.TrimSpace(r.PostFormValue("lang." + n))
		name, desc := strings.TrimSpace(r.PostFormValue("tname."+n)), strings.TrimSpace(r.PostFormValue("tdesc."+n))
		if l == "" || (name == "" && desc == "") {
			continue
		}
		if !banner.ValidLanguage(l) {
			return nil, nil, core.Errorf(core.CodeInvalid, "translations: %q is not a language code (de, fr, pt-BR…)", l)
		}
		if name != "" {
			names[l] = name
		}
		if desc != "" {
			descs[l] = desc
		}
	}
	return names, descs, nil
}

func (h *handler) updateCategory(w http.ResponseWriter, r *http.Request, rq *request) {
	name, desc := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("description"))
	names, descs, err := translationRows(r)
	var c *banner.Category
	if err == nil {
		c, err = h.m.UpdateCategory(r.Context(), rq.org, r.PathValue("id"), r.PathValue("cid"),
			banner.CategoryInput{Name: &name, Description: &desc, NameTranslations: names, DescriptionTranslations: descs})
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showServices(w, r, rq, status, page{Form: "cat-" + r.PathValue("cid"), Error: msg, Values: r.PostForm})
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/services#cat-"+c.Slug, "Category “"+c.Name+"” saved.")
}

// moveCategory moves a category one place up or down: the categories are renumbered in their
// current order with the two swapped.
func (h *handler) moveCategory(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, site, id := r.Context(), r.PathValue("id"), r.PathValue("cid")
	cats, err := h.m.Categories(ctx, rq.org, site)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	i := -1
	for k, c := range cats {
		if c.ID == id {
			i = k
		}
	}
	j := i - 1
	if r.PostFormValue("direction") == "down" {
		j = i + 1
	}
	if i < 0 || j < 0 || j >= len(cats) {
		h.redirect(w, r, rq, "/sites/"+site+"/services", "")
		return
	}
	cats[i], cats[j] = cats[j], cats[i]
	for k, c := range cats {
		if c.SortOrder != k {
			order := k
			if _, err := h.m.UpdateCategory(ctx, rq.org, site, c.ID, banner.CategoryInput{SortOrder: &order}); err != nil {
				h.fail(w, r, rq, err)
				return
			}
		}
	}
	h.redirect(w, r, rq, "/sites/"+site+"/services#cat-"+cats[j].Slug, "Category “"+cats[j].Name+"” moved "+r.PostFormValue("direction")+".")
}

func (h *handler) findCategory(w http.ResponseWriter, r *http.Request, rq *request) (*core.Site, *banner.Category) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return nil, nil
	}
	cats, err := h.m.Categories(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return nil, nil
	}
	for _, c := range cats {
		if c.ID == r.PathValue("cid") {
			return s, c
		}
	}
	h.errorPage(w, r, rq, http.StatusNotFound, "Category not found", "This category no longer exists. Go back to the site's categories.")
	return nil, nil
}

func (h *handler) confirmDeleteCategory(w http.ResponseWriter, r *http.Request, rq *request) {
	s, c := h.findCategory(w, r, rq)
	if c == nil {
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Delete " + c.Name, Section: "sites", Tab: "services", Site: s, Data: confirmation{
		Question: "Delete the category “" + c.Name + "”?",
		Detail:   "Visitors will no longer be asked about it. A category that still has services cannot be deleted: move or delete its services first.",
		Action:   "/sites/" + s.ID + "/categories/" + c.ID + "/delete", Button: "Delete the category", Cancel: "/sites/" + s.ID + "/services",
	}})
}

func (h *handler) deleteCategory(w http.ResponseWriter, r *http.Request, rq *request) {
	site := r.PathValue("id")
	if err := h.m.DeleteCategory(r.Context(), rq.org, site, r.PathValue("cid")); err != nil {
		status, msg := h.message(r, err)
		h.showServices(w, r, rq, status, page{Form: "cat-" + r.PathValue("cid"), Error: msg})
		return
	}
	h.redirect(w, r, rq, "/sites/"+site+"/services", "Category deleted.")
}

// libraryResults is the library page's data.
type libraryResults struct {
	Query      string
	Results    []*library.Service
	More       int
	OnSite     map[string]bool
	Categories []*banner.Category
}

const libraryShown = 30

func (h *handler) libraryPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showLibrary(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showLibrary(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	q := strings.TrimSpace(r.FormValue("q"))
	d := libraryResults{Query: q, OnSite: map[string]bool{}}
	d.Results = h.m.LibraryServices(q)
	if len(d.Results) > libraryShown {
		d.More = len(d.Results) - libraryShown
		d.Results = d.Results[:libraryShown]
	}
	svcs, err := h.m.Services(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	for _, sv := range svcs {
		d.OnSite[sv.Slug] = true
	}
	if d.Categories, err = h.m.Categories(r.Context(), rq.org, s.ID); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Service library · "+s.Name, "sites", "services", s, d
	h.render(w, r, rq, status, "library", p)
}

func (h *handler) importService(w http.ResponseWriter, r *http.Request, rq *request) {
	site, slug := r.PathValue("id"), r.PostFormValue("slug")
	res, err := h.m.ImportService(r.Context(), rq.org, site, slug, r.PostFormValue("categorySlug"))
	if err != nil {
		status, msg := h.message(r, err)
		h.showLibrary(w, r, rq, status, page{Form: "import-" + slug, Error: msg})
		return
	}
	sv := res.Services[0]
	msg := "“" + sv.Label + "” added with " + textfmt.Plural(len(sv.Cookies), "cookie", "cookies")
	if res.BlockingRulesAdded > 0 {
		msg += " and a blocking rule that holds its scripts back until consent"
	}
	h.redirect(w, r, rq, "/sites/"+site+"/library?q="+r.PostFormValue("q"), msg+".")
}

// serviceForm is the service editor's data.
type serviceForm struct {
	Service *banner.Service
	// Languages are the languages of the service's label and description translations.
	Languages  []string
	Categories []*banner.Category
	Category   string
	Cookies    []banner.CookieInput
	New        bool
}

// blankCookies are the empty rows the editor offers for new cookies.
const blankCookies = 3

func (h *handler) newServicePage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showService(w, r, rq, http.StatusOK, page{}, nil)
}

func (h *handler) servicePage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showService(w, r, rq, http.StatusOK, page{}, nil)
}

// showService shows the editor of the service in the path (a new one without), with in as
// entered when it is not nil.
func (h *handler) showService(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, in *banner.ServiceInput) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	cats, err := h.m.Categories(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	d := serviceForm{Categories: cats, New: r.PathValue("sid") == ""}
	if d.New {
		d.Service = &banner.Service{}
		d.Category = r.URL.Query().Get("category")
	} else {
		svcs, err := h.m.Services(r.Context(), rq.org, s.ID)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		for _, sv := range svcs {
			if sv.ID == r.PathValue("sid") {
				d.Service = sv
			}
		}
		if d.Service == nil {
			h.errorPage(w, r, rq, http.StatusNotFound, "Service not found", "This service is no longer on the site. Go back to its categories and services.")
			return
		}
		for _, c := range cats {
			if c.ID == d.Service.CategoryID {
				d.Category = c.Slug
			}
		}
		for _, c := range d.Service.Cookies {
			d.Cookies = append(d.Cookies, banner.CookieInput{Name: c.Name, Duration: c.Duration, Description: c.Description})
		}
	}
	if in != nil {
		sv := *d.Service
		sv.Slug, sv.Label, sv.Description, sv.ServiceURL = in.Slug, in.Label, in.Description, in.ServiceURL
		sv.LabelTranslations, sv.DescriptionTranslations = in.LabelTranslations, in.DescriptionTranslations
		d.Service, d.Category, d.Cookies = &sv, in.CategorySlug, in.Cookies
	}
	for l := range d.Service.LabelTranslations {
		d.Languages = append(d.Languages, l)
	}
	for l := range d.Service.DescriptionTranslations {
		if d.Service.LabelTranslations[l] == "" {
			d.Languages = append(d.Languages, l)
		}
	}
	slices.Sort(d.Languages)
	for range blankCookies {
		d.Cookies = append(d.Cookies, banner.CookieInput{})
	}
	title := "New service"
	if !d.New {
		title = d.Service.Label
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = title+" · "+s.Name, "sites", "services", s, d
	h.render(w, r, rq, status, "service", p)
}

// parseService reads the service editor: cookies are rows cookie.N.name, .duration,
// .description and .remove; a row without a name is ignored.
func parseService(r *http.Request) (banner.ServiceInput, error) {
	in := banner.ServiceInput{
		Slug: strings.TrimSpace(r.PostFormValue("slug")), Label: strings.TrimSpace(r.PostFormValue("label")),
		CategorySlug: r.PostFormValue("categorySlug"), Description: strings.TrimSpace(r.PostFormValue("description")),
	}
	if u := strings.TrimSpace(r.PostFormValue("serviceUrl")); u != "" {
		in.ServiceURL = &u
	}
	n, _ := strconv.Atoi(r.PostFormValue("cookies"))
	for i := range min(n, banner.MaxServiceCookies+blankCookies) {
		k := "cookie." + strconv.Itoa(i) + "."
		name := strings.TrimSpace(r.PostFormValue(k + "name"))
		if name == "" || r.PostFormValue(k+"remove") == "on" {
			continue
		}
		in.Cookies = append(in.Cookies, banner.CookieInput{Name: name, Duration: strings.TrimSpace(r.PostFormValue(k + "duration")),
			Description: strings.TrimSpace(r.PostFormValue(k + "description"))})
	}
	var err error
	in.LabelTranslations, in.DescriptionTranslations, err = translationRows(r)
	return in, err
}

func (h *handler) createService(w http.ResponseWriter, r *http.Request, rq *request) {
	in, err := parseService(r)
	var sv *banner.Service
	if err == nil {
		sv, err = h.m.CreateService(r.Context(), rq.org, r.PathValue("id"), in)
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showService(w, r, rq, status, page{Form: "service", Error: msg}, &in)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/services", "Service “"+sv.Label+"” added.")
}

func (h *handler) updateService(w http.ResponseWriter, r *http.Request, rq *request) {
	in, err := parseService(r)
	var sv *banner.Service
	if err == nil {
		err = h.keepCookieTranslations(r, rq, &in)
	}
	if err == nil {
		sv, err = h.m.UpdateService(r.Context(), rq.org, r.PathValue("id"), r.PathValue("sid"), in)
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showService(w, r, rq, status, page{Form: "service", Error: msg}, &in)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/services/"+sv.ID, "Service “"+sv.Label+"” saved with "+textfmt.Plural(len(sv.Cookies), "cookie", "cookies")+".")
}

func (h *handler) confirmDeleteService(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	svcs, err := h.m.Services(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	for _, sv := range svcs {
		if sv.ID == r.PathValue("sid") {
			h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Delete " + sv.Label, Section: "sites", Tab: "services", Site: s, Data: confirmation{
				Question: "Delete the service “" + sv.Label + "”?",
				Detail:   "Its " + textfmt.Plural(len(sv.Cookies), "cookie", "cookies") + " and its blocking rule go with it: its scripts will no longer be held back by site-wide blocking.",
				Action:   "/sites/" + s.ID + "/services/" + sv.ID + "/delete", Button: "Delete the service", Cancel: "/sites/" + s.ID + "/services/" + sv.ID,
			}})
			return
		}
	}
	h.errorPage(w, r, rq, http.StatusNotFound, "Service not found", "This service is no longer on the site.")
}

func (h *handler) deleteService(w http.ResponseWriter, r *http.Request, rq *request) {
	site := r.PathValue("id")
	if err := h.m.DeleteService(r.Context(), rq.org, site, r.PathValue("sid")); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.redirect(w, r, rq, "/sites/"+site+"/services", "Service deleted.")
}

// keepCookieTranslations carries the stored description translations of the service's
// cookies over to the cookies of the same name in, since the editor does not show them.
func (h *handler) keepCookieTranslations(r *http.Request, rq *request, in *banner.ServiceInput) error {
	svcs, err := h.m.Services(r.Context(), rq.org, r.PathValue("id"))
	if err != nil {
		return err
	}
	for _, sv := range svcs {
		if sv.ID != r.PathValue("sid") {
			continue
		}
		tr := map[string]map[string]string{}
		for _, c := range sv.Cookies {
			tr[c.Name] = c.DescriptionTranslations
		}
		for i := range in.Cookies {
			in.Cookies[i].DescriptionTranslations = tr[in.Cookies[i].Name]
		}
	}
	return nil
}
