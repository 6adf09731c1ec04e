package banner

import (
	"context"

	"github.com/consentd/consentd/core"
)

// UpdateService replaces a custom or imported service's label, description, translations,
// service URL, category and cookies with in's, keeping its ID, slug, creation time, logo,
// privacy policy and blocking patterns (in.Slug is ignored). Cookies whose name is unchanged keep
// their ID. The service is rewritten in one transaction through the store's create and delete,
// so that no store needs an update method of its own.
func (services *Services) UpdateService(ctx context.Context, orgID, siteID, id string, in ServiceInput) (*Service, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	var out *Service
	err := services.Store.InTx(ctx, func(tx Store) error {
		if _, err := tx.Site(ctx, orgID, siteID); err != nil {
			return err
		}
		old, err := tx.Service(ctx, siteID, id)
		if err != nil {
			return err
		}
		in.Slug = old.Slug
		if err := in.validate(); err != nil {
			return err
		}
		cat, err := tx.CategoryBySlug(ctx, siteID, in.CategorySlug)
		if core.IsNotFound(err) {
			return core.FieldErrorf("categorySlug", "category %q not found on this site", in.CategorySlug)
		}
		if err != nil {
			return err
		}
		now := services.Clock.Now()
		s := *old
		s.CategoryID, s.Label, s.Description = cat.ID, in.Label, in.Description
		s.LabelTranslations, s.DescriptionTranslations = orEmpty(in.LabelTranslations), orEmpty(in.DescriptionTranslations)
		s.ServiceURL, s.UpdatedAt, s.Cookies = in.ServiceURL, now, []*Cookie{}
		kept := map[string]*Cookie{}
		for _, c := range old.Cookies {
			kept[c.Name] = c
		}
		for _, c := range in.Cookies {
			ck := &Cookie{ID: services.NewID(), ServiceID: s.ID, Name: c.Name, Duration: c.Duration, Description: c.Description,
				DescriptionTranslations: orEmpty(c.DescriptionTranslations), CreatedAt: now}
			if k, ok := kept[c.Name]; ok {
				ck.ID, ck.CreatedAt = k.ID, k.CreatedAt
				delete(kept, c.Name)
			}
			s.Cookies = append(s.Cookies, ck)
		}
		if err := tx.DeleteService(ctx, siteID, id); err != nil {
			return err
		}
		if err := services.Events.ChangedIn(ctx, tx, siteID, "services", tx.CreateService(ctx, &s)); err != nil {
			return err
		}
		out = &s
		return services.Audit.Record(ctx, tx, orgID, siteID, core.AuditServiceUpdate, s.ID, old, &s)
	})
	if err != nil {
		return nil, err
	}
	services.Views.Forget(siteID)
	return out, nil
}
