package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/scan"
)

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
	old.ScanSchedule, old.VerifySchedule, old.AutoConfigure = x.ScanSchedule, x.VerifySchedule, x.AutoConfigure
	old.DigestRecipients = slices.Clone(x.DigestRecipients)
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
	maps.DeleteFunc(s.d.cats, func(_ string, c banner.Category) bool { return c.SiteID == id })
	maps.DeleteFunc(s.d.svcs, func(_ string, c banner.Service) bool { return c.SiteID == id })
	maps.DeleteFunc(s.d.scans, func(_ string, c scan.Scan) bool { return c.SiteID == id })
	s.d.consents = slices.DeleteFunc(s.d.consents, func(r consent.ConsentRecord) bool { return r.SiteID == id })
	s.d.proof.deleteSite(id)
	return nil
}

func cloneBanner(b banner.Banner) *banner.Banner {
	b.Colors = maps.Clone(b.Colors)
	b.TextOverrides = maps.Clone(b.TextOverrides)
	tt := make(map[string]map[string]string, len(b.TextTranslations))
	for k, v := range b.TextTranslations {
		tt[k] = maps.Clone(v)
	}
	b.TextTranslations = tt
	b.RegionRules = slices.Clone(b.RegionRules)
	for i := range b.RegionRules {
		b.RegionRules[i].Regions = slices.Clone(b.RegionRules[i].Regions)
	}
	if b.RegionRules == nil {
		b.RegionRules = []banner.RegionRule{}
	}
	b.TCF = b.TCF.Clone()
	b.GPP = b.GPP.Clone()
	b.BlockingRules = nil
	b.ConsentMode = banner.ConsentModeOf(b.GCMExcludeVendor) // one stored value, as on SQL
	return &b
}

// CreateBanner implements core.BannerStore.
func (s *Store) CreateBanner(_ context.Context, b *banner.Banner) error {
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
func (s *Store) Banner(_ context.Context, siteID string) (*banner.Banner, error) {
	defer s.lock()()
	b, ok := s.d.banners[siteID]
	if !ok {
		return nil, notFound("banner")
	}
	return cloneBanner(b), nil
}

// UpdateBanner implements core.BannerStore.
func (s *Store) UpdateBanner(_ context.Context, b *banner.Banner) error {
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

func cloneCategory(c banner.Category) *banner.Category {
	c.NameTranslations = maps.Clone(c.NameTranslations)
	c.DescriptionTranslations = maps.Clone(c.DescriptionTranslations)
	return &c
}

// CreateCategory implements core.CategoryStore.
func (s *Store) CreateCategory(_ context.Context, c *banner.Category) error {
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
func (s *Store) Categories(_ context.Context, siteID string) ([]*banner.Category, error) {
	defer s.lock()()
	out := []*banner.Category{}
	for _, c := range s.d.cats {
		if c.SiteID == siteID {
			out = append(out, cloneCategory(c))
		}
	}
	slices.SortFunc(out, func(a, b *banner.Category) int {
		return cmp.Or(cmp.Compare(a.SortOrder, b.SortOrder), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Category implements core.CategoryStore.
func (s *Store) Category(_ context.Context, siteID, id string) (*banner.Category, error) {
	defer s.lock()()
	c, ok := s.d.cats[id]
	if !ok || c.SiteID != siteID {
		return nil, notFound("category")
	}
	return cloneCategory(c), nil
}

// CategoryBySlug implements core.CategoryStore.
func (s *Store) CategoryBySlug(_ context.Context, siteID, slug string) (*banner.Category, error) {
	defer s.lock()()
	for _, c := range s.d.cats {
		if c.SiteID == siteID && c.Slug == slug {
			return cloneCategory(c), nil
		}
	}
	return nil, notFound("category")
}

// UpdateCategory implements core.CategoryStore.
func (s *Store) UpdateCategory(_ context.Context, c *banner.Category) error {
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

func cloneService(x banner.Service) *banner.Service {
	x.LabelTranslations = maps.Clone(x.LabelTranslations)
	x.DescriptionTranslations = maps.Clone(x.DescriptionTranslations)
	x.BlockingPatterns = slices.Clone(x.BlockingPatterns)
	cs := make([]*banner.Cookie, len(x.Cookies))
	for i, c := range x.Cookies {
		cc := *c
		cc.DescriptionTranslations = maps.Clone(c.DescriptionTranslations)
		cs[i] = &cc
	}
	x.Cookies = cs
	return &x
}

// CreateService implements core.ServiceStore.
func (s *Store) CreateService(_ context.Context, x *banner.Service) error {
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
func (s *Store) Services(_ context.Context, siteID string) ([]*banner.Service, error) {
	defer s.lock()()
	out := []*banner.Service{}
	for _, x := range s.d.svcs {
		if x.SiteID == siteID {
			out = append(out, cloneService(x))
		}
	}
	slices.SortFunc(out, func(a, b *banner.Service) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Service implements core.ServiceStore.
func (s *Store) Service(_ context.Context, siteID, id string) (*banner.Service, error) {
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
