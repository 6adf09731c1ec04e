// Package memstore is an in-memory core.Store for tests of the core and the HTTP adapter. It
// is trusted because it passes the same contract suite (coretest.StoreContract) as the SQL
// stores. Nothing in production uses it.
package memstore

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
)

// Store keeps everything in maps behind one mutex. A transaction holds the mutex for its
// whole run and restores a snapshot when it fails.
type Store struct {
	mu   *sync.Mutex
	d    *data
	inTx bool
}

var _ core.Store = (*Store)(nil)

type data struct {
	orgs     map[string]core.Organization
	keys     map[string]core.APIKey // by hash
	sites    map[string]core.Site
	banners  map[string]core.Banner // by site
	cats     map[string]core.Category
	svcs     map[string]core.Service
	scans    map[string]core.Scan
	consents []core.ConsentRecord
	// proof holds the chains, snapshots and statistics of consent records (proof.go).
	proof proofData
}

// New returns an empty store.
func New() *Store {
	return &Store{mu: &sync.Mutex{}, d: &data{
		orgs: map[string]core.Organization{}, keys: map[string]core.APIKey{}, sites: map[string]core.Site{},
		banners: map[string]core.Banner{}, cats: map[string]core.Category{}, svcs: map[string]core.Service{},
		scans: map[string]core.Scan{},
	}}
}

func (s *Store) lock() func() {
	if s.inTx {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

func (d *data) clone() *data {
	return &data{
		orgs: maps.Clone(d.orgs), keys: maps.Clone(d.keys), sites: maps.Clone(d.sites),
		banners: maps.Clone(d.banners), cats: maps.Clone(d.cats), svcs: maps.Clone(d.svcs),
		scans: maps.Clone(d.scans), consents: slices.Clone(d.consents), proof: d.proof.clone(),
	}
}

// InTx implements core.Store.
func (s *Store) InTx(ctx context.Context, fn func(tx core.Store) error) error {
	if s.inTx {
		return fn(s)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.d.clone()
	if err := fn(&Store{mu: s.mu, d: s.d, inTx: true}); err != nil {
		*s.d = *snap
		return err
	}
	return nil
}

// Ping implements core.Store.
func (s *Store) Ping(context.Context) error { return nil }

func notFound(what string) error { return core.Errorf(core.CodeNotFound, "%s not found", what) }
func conflict(what string) error { return core.Errorf(core.CodeConflict, "%s already exists", what) }

// CreateOrganization implements core.OrgStore.
func (s *Store) CreateOrganization(_ context.Context, o *core.Organization) error {
	defer s.lock()()
	if _, ok := s.d.orgs[o.ID]; ok {
		return conflict("organization")
	}
	s.d.orgs[o.ID] = *o
	return nil
}

// CountOrganizations implements core.OrgStore.
func (s *Store) CountOrganizations(context.Context) (int, error) {
	defer s.lock()()
	return len(s.d.orgs), nil
}

// Organization implements core.OrgStore.
func (s *Store) Organization(_ context.Context, id string) (*core.Organization, error) {
	defer s.lock()()
	o, ok := s.d.orgs[id]
	if !ok {
		return nil, notFound("organization")
	}
	return &o, nil
}

// Organizations implements core.OrgStore.
func (s *Store) Organizations(_ context.Context) ([]*core.Organization, error) {
	defer s.lock()()
	out := make([]*core.Organization, 0, len(s.d.orgs))
	for _, o := range s.d.orgs {
		out = append(out, &o)
	}
	slices.SortFunc(out, func(a, b *core.Organization) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CreateAPIKey implements core.OrgStore.
func (s *Store) CreateAPIKey(_ context.Context, k *core.APIKey) error {
	defer s.lock()()
	if _, ok := s.d.keys[k.Hash]; ok {
		return conflict("api key")
	}
	if _, ok := s.d.orgs[k.OrganizationID]; !ok {
		return notFound("organization")
	}
	s.d.keys[k.Hash] = *k
	return nil
}

// APIKeyByHash implements core.OrgStore.
func (s *Store) APIKeyByHash(_ context.Context, hash string) (*core.APIKey, error) {
	defer s.lock()()
	k, ok := s.d.keys[hash]
	if !ok {
		return nil, notFound("api key")
	}
	return &k, nil
}

// APIKeys implements core.OrgStore.
func (s *Store) APIKeys(_ context.Context, orgID string) ([]*core.APIKey, error) {
	defer s.lock()()
	out := []*core.APIKey{}
	for _, k := range s.d.keys {
		if k.OrganizationID == orgID {
			out = append(out, &k)
		}
	}
	slices.SortFunc(out, func(a, b *core.APIKey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// keyByID returns the hash under which a key is kept; "" when none matches.
func (s *Store) keyByID(orgID, id string) string {
	for h, k := range s.d.keys {
		if k.ID == id && (orgID == "" || k.OrganizationID == orgID) {
			return h
		}
	}
	return ""
}

// APIKey implements core.OrgStore.
func (s *Store) APIKey(_ context.Context, orgID, id string) (*core.APIKey, error) {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return nil, notFound("api key")
	}
	k := s.d.keys[h]
	return &k, nil
}

// DeleteAPIKey implements core.OrgStore.
func (s *Store) DeleteAPIKey(_ context.Context, orgID, id string) error {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return notFound("api key")
	}
	delete(s.d.keys, h)
	return nil
}

// ExpireAPIKey implements core.OrgStore.
func (s *Store) ExpireAPIKey(_ context.Context, orgID, id string, at time.Time) error {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return notFound("api key")
	}
	k := s.d.keys[h]
	k.ExpiresAt = &at
	s.d.keys[h] = k
	return nil
}

// TouchAPIKey implements core.OrgStore.
func (s *Store) TouchAPIKey(_ context.Context, id string, at time.Time) error {
	defer s.lock()()
	h := s.keyByID("", id)
	if h == "" {
		return notFound("api key")
	}
	k := s.d.keys[h]
	k.LastUsedAt = &at
	s.d.keys[h] = k
	return nil
}

// CreateSite implements core.SiteStore.
func (s *Store) CreateSite(_ context.Context, x *core.Site) error {
	defer s.lock()()
	for _, o := range s.d.sites {
		if o.ID == x.ID || o.ProjectKey == x.ProjectKey {
			return conflict("site")
		}
	}
	if _, ok := s.d.orgs[x.OrganizationID]; !ok {
		return notFound("organization")
	}
	s.d.sites[x.ID] = *x
	return nil
}

// Site implements core.SiteStore.
func (s *Store) Site(_ context.Context, orgID, id string) (*core.Site, error) {
	defer s.lock()()
	x, ok := s.d.sites[id]
	if !ok || x.OrganizationID != orgID {
		return nil, notFound("site")
	}
	return &x, nil
}

// SiteByProjectKey implements core.SiteStore.
func (s *Store) SiteByProjectKey(_ context.Context, key string) (*core.Site, error) {
	defer s.lock()()
	for _, x := range s.d.sites {
		if x.ProjectKey == key {
			return &x, nil
		}
	}
	return nil, notFound("site")
}

// Sites implements core.SiteStore.
func (s *Store) Sites(_ context.Context, orgID string) ([]*core.Site, error) {
	defer s.lock()()
	out := []*core.Site{}
	for _, x := range s.d.sites {
		if x.OrganizationID == orgID {
			out = append(out, &x)
		}
	}
	slices.SortFunc(out, func(a, b *core.Site) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// UpdateSite implements core.SiteStore.
func (s *Store) UpdateSite(_ context.Context, x *core.Site) error {
	defer s.lock()()
	old, ok := s.d.sites[x.ID]
	if !ok {
		return notFound("site")
	}
	old.Name, old.URL, old.UpdatedAt = x.Name, x.URL, x.UpdatedAt
	old.ConsentRetentionDays = nil
	if x.ConsentRetentionDays != nil {
		d := *x.ConsentRetentionDays
		old.ConsentRetentionDays = &d
	}
	s.d.sites[x.ID] = old
	return nil
}

// DeleteSite implements core.SiteStore.
func (s *Store) DeleteSite(_ context.Context, id string) error {
	defer s.lock()()
	if _, ok := s.d.sites[id]; !ok {
		return notFound("site")
	}
	delete(s.d.sites, id)
	delete(s.d.banners, id)
	maps.DeleteFunc(s.d.cats, func(_ string, c core.Category) bool { return c.SiteID == id })
	maps.DeleteFunc(s.d.svcs, func(_ string, c core.Service) bool { return c.SiteID == id })
	maps.DeleteFunc(s.d.scans, func(_ string, c core.Scan) bool { return c.SiteID == id })
	s.d.consents = slices.DeleteFunc(s.d.consents, func(r core.ConsentRecord) bool { return r.SiteID == id })
	s.d.proof.deleteSite(id)
	return nil
}

func cloneBanner(b core.Banner) *core.Banner {
	b.Colors = maps.Clone(b.Colors)
	b.TextOverrides = maps.Clone(b.TextOverrides)
	tt := make(map[string]map[string]string, len(b.TextTranslations))
	for k, v := range b.TextTranslations {
		tt[k] = maps.Clone(v)
	}
	b.TextTranslations = tt
	b.BlockingRules = nil
	return &b
}

// CreateBanner implements core.BannerStore.
func (s *Store) CreateBanner(_ context.Context, b *core.Banner) error {
	defer s.lock()()
	if _, ok := s.d.banners[b.SiteID]; ok {
		return conflict("banner")
	}
	if _, ok := s.d.sites[b.SiteID]; !ok {
		return notFound("site")
	}
	s.d.banners[b.SiteID] = *cloneBanner(*b)
	return nil
}

// Banner implements core.BannerStore.
func (s *Store) Banner(_ context.Context, siteID string) (*core.Banner, error) {
	defer s.lock()()
	b, ok := s.d.banners[siteID]
	if !ok {
		return nil, notFound("banner")
	}
	return cloneBanner(b), nil
}

// UpdateBanner implements core.BannerStore.
func (s *Store) UpdateBanner(_ context.Context, b *core.Banner) error {
	defer s.lock()()
	old, ok := s.d.banners[b.SiteID]
	if !ok {
		return notFound("banner")
	}
	nb := cloneBanner(*b)
	nb.ID, nb.CreatedAt = old.ID, old.CreatedAt
	s.d.banners[b.SiteID] = *nb
	return nil
}

func cloneCategory(c core.Category) *core.Category {
	c.NameTranslations = maps.Clone(c.NameTranslations)
	c.DescriptionTranslations = maps.Clone(c.DescriptionTranslations)
	return &c
}

// CreateCategory implements core.CategoryStore.
func (s *Store) CreateCategory(_ context.Context, c *core.Category) error {
	defer s.lock()()
	if _, ok := s.d.sites[c.SiteID]; !ok {
		return notFound("site")
	}
	for _, o := range s.d.cats {
		if o.ID == c.ID || (o.SiteID == c.SiteID && o.Slug == c.Slug) {
			return conflict("category")
		}
	}
	s.d.cats[c.ID] = *cloneCategory(*c)
	return nil
}

// Categories implements core.CategoryStore.
func (s *Store) Categories(_ context.Context, siteID string) ([]*core.Category, error) {
	defer s.lock()()
	out := []*core.Category{}
	for _, c := range s.d.cats {
		if c.SiteID == siteID {
			out = append(out, cloneCategory(c))
		}
	}
	slices.SortFunc(out, func(a, b *core.Category) int {
		return cmp.Or(cmp.Compare(a.SortOrder, b.SortOrder), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Category implements core.CategoryStore.
func (s *Store) Category(_ context.Context, siteID, id string) (*core.Category, error) {
	defer s.lock()()
	c, ok := s.d.cats[id]
	if !ok || c.SiteID != siteID {
		return nil, notFound("category")
	}
	return cloneCategory(c), nil
}

// CategoryBySlug implements core.CategoryStore.
func (s *Store) CategoryBySlug(_ context.Context, siteID, slug string) (*core.Category, error) {
	defer s.lock()()
	for _, c := range s.d.cats {
		if c.SiteID == siteID && c.Slug == slug {
			return cloneCategory(c), nil
		}
	}
	return nil, notFound("category")
}

// UpdateCategory implements core.CategoryStore.
func (s *Store) UpdateCategory(_ context.Context, c *core.Category) error {
	defer s.lock()()
	old, ok := s.d.cats[c.ID]
	if !ok || old.SiteID != c.SiteID {
		return notFound("category")
	}
	old.Name, old.Description, old.SortOrder, old.UpdatedAt = c.Name, c.Description, c.SortOrder, c.UpdatedAt
	old.NameTranslations, old.DescriptionTranslations = maps.Clone(c.NameTranslations), maps.Clone(c.DescriptionTranslations)
	s.d.cats[c.ID] = old
	return nil
}

// DeleteCategory implements core.CategoryStore.
func (s *Store) DeleteCategory(_ context.Context, siteID, id string) error {
	defer s.lock()()
	c, ok := s.d.cats[id]
	if !ok || c.SiteID != siteID {
		return notFound("category")
	}
	for _, svc := range s.d.svcs {
		if svc.CategoryID == id {
			return core.Errorf(core.CodeConflict, "category has services")
		}
	}
	delete(s.d.cats, id)
	return nil
}

func cloneService(x core.Service) *core.Service {
	x.LabelTranslations = maps.Clone(x.LabelTranslations)
	x.DescriptionTranslations = maps.Clone(x.DescriptionTranslations)
	x.BlockingPatterns = slices.Clone(x.BlockingPatterns)
	cs := make([]*core.Cookie, len(x.Cookies))
	for i, c := range x.Cookies {
		cc := *c
		cc.DescriptionTranslations = maps.Clone(c.DescriptionTranslations)
		cs[i] = &cc
	}
	x.Cookies = cs
	return &x
}

// CreateService implements core.ServiceStore.
func (s *Store) CreateService(_ context.Context, x *core.Service) error {
	defer s.lock()()
	if _, ok := s.d.sites[x.SiteID]; !ok {
		return notFound("site")
	}
	if c, ok := s.d.cats[x.CategoryID]; !ok || c.SiteID != x.SiteID {
		return notFound("category")
	}
	for _, o := range s.d.svcs {
		if o.ID == x.ID || (o.SiteID == x.SiteID && o.Slug == x.Slug) {
			return conflict("service")
		}
	}
	s.d.svcs[x.ID] = *cloneService(*x)
	return nil
}

// Services implements core.ServiceStore.
func (s *Store) Services(_ context.Context, siteID string) ([]*core.Service, error) {
	defer s.lock()()
	out := []*core.Service{}
	for _, x := range s.d.svcs {
		if x.SiteID == siteID {
			out = append(out, cloneService(x))
		}
	}
	slices.SortFunc(out, func(a, b *core.Service) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Service implements core.ServiceStore.
func (s *Store) Service(_ context.Context, siteID, id string) (*core.Service, error) {
	defer s.lock()()
	x, ok := s.d.svcs[id]
	if !ok || x.SiteID != siteID {
		return nil, notFound("service")
	}
	return cloneService(x), nil
}

// CountServicesInCategory implements core.ServiceStore.
func (s *Store) CountServicesInCategory(_ context.Context, categoryID string) (int, error) {
	defer s.lock()()
	n := 0
	for _, x := range s.d.svcs {
		if x.CategoryID == categoryID {
			n++
		}
	}
	return n, nil
}

// DeleteService implements core.ServiceStore.
func (s *Store) DeleteService(_ context.Context, siteID, id string) error {
	defer s.lock()()
	x, ok := s.d.svcs[id]
	if !ok || x.SiteID != siteID {
		return notFound("service")
	}
	delete(s.d.svcs, id)
	return nil
}

func cloneScan(x core.Scan) *core.Scan {
	x.URLs = slices.Clone(x.URLs)
	x.DetectedServices = slices.Clone(x.DetectedServices)
	x.UnrecognizedScripts = slices.Clone(x.UnrecognizedScripts)
	x.PageErrors = slices.Clone(x.PageErrors)
	return &x
}

// CreateScan implements core.ScanStore.
func (s *Store) CreateScan(_ context.Context, x *core.Scan) error {
	defer s.lock()()
	if _, ok := s.d.sites[x.SiteID]; !ok {
		return notFound("site")
	}
	if _, ok := s.d.scans[x.ID]; ok {
		return conflict("scan")
	}
	s.d.scans[x.ID] = *cloneScan(*x)
	return nil
}

// Scan implements core.ScanStore.
func (s *Store) Scan(_ context.Context, siteID, id string) (*core.Scan, error) {
	defer s.lock()()
	x, ok := s.d.scans[id]
	if !ok || x.SiteID != siteID {
		return nil, notFound("scan")
	}
	return cloneScan(x), nil
}

// ScanByID implements core.ScanStore.
func (s *Store) ScanByID(_ context.Context, id string) (*core.Scan, error) {
	defer s.lock()()
	x, ok := s.d.scans[id]
	if !ok {
		return nil, notFound("scan")
	}
	return cloneScan(x), nil
}

func newestFirst(a, b *core.Scan) int {
	return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
}

// Scans implements core.ScanStore.
func (s *Store) Scans(_ context.Context, siteID string) ([]*core.Scan, error) {
	defer s.lock()()
	out := []*core.Scan{}
	for _, x := range s.d.scans {
		if x.SiteID == siteID {
			out = append(out, cloneScan(x))
		}
	}
	slices.SortFunc(out, newestFirst)
	return out, nil
}

// LatestScan implements core.ScanStore.
func (s *Store) LatestScan(_ context.Context, siteID string, statuses ...string) (*core.Scan, error) {
	defer s.lock()()
	var best *core.Scan
	for _, x := range s.d.scans {
		if x.SiteID == siteID && slices.Contains(statuses, x.Status) && (best == nil || newestFirst(&x, best) < 0) {
			best = cloneScan(x)
		}
	}
	if best == nil {
		return nil, notFound("scan")
	}
	return best, nil
}

// UpdateScan implements core.ScanStore.
func (s *Store) UpdateScan(_ context.Context, x *core.Scan) error {
	defer s.lock()()
	old, ok := s.d.scans[x.ID]
	if !ok {
		return notFound("scan")
	}
	n := cloneScan(*x)
	n.SiteID, n.URL, n.URLs, n.CreatedAt = old.SiteID, old.URL, old.URLs, old.CreatedAt
	s.d.scans[x.ID] = *n
	return nil
}

// CreateConsentRecord implements core.ConsentStore.
func (s *Store) CreateConsentRecord(_ context.Context, r *core.ConsentRecord) error {
	defer s.lock()()
	if _, ok := s.d.sites[r.SiteID]; !ok {
		return notFound("site")
	}
	s.d.proof.chain(r)
	c := *r
	c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
	s.d.consents = append(s.d.consents, c)
	return nil
}

// ConsentRecords implements core.ConsentStore.
func (s *Store) ConsentRecords(_ context.Context, q core.ConsentQuery) ([]*core.ConsentRecord, int, error) {
	defer s.lock()()
	var all []*core.ConsentRecord
	for _, r := range s.d.consents {
		if r.SiteID != q.SiteID || (q.From != nil && !r.CreatedAt.After(*q.From)) || (q.To != nil && !r.CreatedAt.Before(*q.To)) ||
			(q.VisitorID != "" && r.VisitorID != q.VisitorID) {
			continue
		}
		c := r
		c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
		all = append(all, &c)
	}
	slices.SortFunc(all, func(a, b *core.ConsentRecord) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	total := len(all)
	if q.After != nil {
		i, _ := slices.BinarySearchFunc(all, q.After, func(r *core.ConsentRecord, k *core.ConsentKey) int {
			return cmp.Or(k.CreatedAt.Compare(r.CreatedAt), cmp.Compare(k.ID, r.ID))
		})
		for i < len(all) && all[i].CreatedAt.Equal(q.After.CreatedAt) && all[i].ID == q.After.ID {
			i++
		}
		all = all[i:]
	}
	start := min(len(all), (q.Page-1)*q.Limit)
	end := min(len(all), start+q.Limit)
	return slices.Clip(all[start:end]), total, nil
}

// EachConsentRecord implements core.ConsentStore.
func (s *Store) EachConsentRecord(ctx context.Context, q core.ConsentQuery, fn func(*core.ConsentRecord) error) error {
	q.Page, q.Limit = 1, math.MaxInt
	all, _, err := s.ConsentRecords(ctx, q)
	if err != nil {
		return err
	}
	for _, r := range all {
		s.d.proof.link(r)
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

var _ core.SiteLister = (*Store)(nil)

// AllSites implements core.SiteLister.
func (s *Store) AllSites(_ context.Context, afterID string, limit int) ([]*core.Site, error) {
	defer s.lock()()
	out := []*core.Site{}
	for _, x := range s.d.sites {
		if x.ID > afterID {
			out = append(out, &x)
		}
	}
	slices.SortFunc(out, func(a, b *core.Site) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}
