// Package bunstore is the SQL store of consentd on bun: SQLite (embedded, pure Go) and
// Postgres, with versioned migrations for each dialect.
package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
)

// Store implements core.Store on a bun database or transaction.
type Store struct {
	db bun.IDB
	// root is the database the store was opened on; Close and Ping act on it.
	root *bun.DB
	tx   *bun.Tx
	// ingest group-commits consent records written outside a transaction; nil in stores
	// handed to InTx functions.
	ingest *groupCommit
}

var _ core.Store = (*Store)(nil)

// DB returns the underlying bun database.
func (s *Store) DB() *bun.DB { return s.root }

// Tx returns the transaction a store handed to an InTx function works in, or nil.
func (s *Store) Tx() *bun.Tx { return s.tx }

// Close waits for consent batches in progress to commit and closes the database.
func (s *Store) Close() error {
	if s.ingest != nil {
		s.ingest.close()
	}
	return s.root.Close()
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.root.PingContext(ctx); err != nil {
		return core.Wrap(core.CodeInternal, err, "database unreachable")
	}
	return nil
}

// InTx runs fn in a transaction; inside one already, fn joins it.
func (s *Store) InTx(ctx context.Context, fn func(tx core.Store) error) error {
	if s.tx != nil {
		return fn(s)
	}
	return s.root.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(&Store{db: tx, root: s.root, tx: &tx})
	})
}

// locked makes a single-row read inside a transaction on Postgres lock the row (FOR UPDATE)
// until commit, so that concurrent read-modify-write updates of one site, banner or category
// apply one after the other instead of losing each other's changes. SQLite transactions are
// serialized already (BEGIN IMMEDIATE).
func (s *Store) locked(q *bun.SelectQuery) *bun.SelectQuery {
	if s.tx != nil && s.Dialect() == "postgres" {
		return q.For("UPDATE")
	}
	return q
}

// translate maps driver errors to core errors: no rows → not_found, unique violation →
// conflict, a malformed identifier (Postgres uuid columns) → not_found, a foreign key
// violation (the parent named by an insert does not exist) → not_found, as memstore answers.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		switch st.SQLState() {
		case "23505":
			return core.Wrap(core.CodeConflict, err, what+" already exists")
		case "23503":
			return core.Wrap(core.CodeNotFound, err, what+" refers to a row that does not exist")
		case "22P02":
			return core.Errorf(core.CodeNotFound, "%s not found", what)
		}
	}
	var sc interface{ Code() int }
	if errors.As(err, &sc) {
		switch sc.Code() {
		case 2067, 1555: // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY
			return core.Wrap(core.CodeConflict, err, what+" already exists")
		case 787: // SQLITE_CONSTRAINT_FOREIGNKEY
			return core.Wrap(core.CodeNotFound, err, what+" refers to a row that does not exist")
		}
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return core.Wrap(core.CodeConflict, err, what+" already exists")
	}
	return fmt.Errorf("%s: %w", what, err)
}

func mustAffect(res sql.Result, err error, what string) error {
	if err != nil {
		return translate(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return translate(err, what)
	}
	if n == 0 {
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	}
	return nil
}

// CreateOrganization implements core.OrgStore.
func (s *Store) CreateOrganization(ctx context.Context, o *core.Organization) error {
	_, err := s.db.NewInsert().Model(&organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt}).Exec(ctx)
	return translate(err, "organization")
}

// CountOrganizations implements core.OrgStore.
func (s *Store) CountOrganizations(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*organization)(nil)).Count(ctx)
	return int(n), translate(err, "organization")
}

// Organization implements core.OrgStore.
func (s *Store) Organization(ctx context.Context, id string) (*core.Organization, error) {
	var o organization
	if err := s.db.NewSelect().Model(&o).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, translate(err, "organization")
	}
	return &core.Organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt.UTC()}, nil
}

// Organizations implements core.OrgStore.
func (s *Store) Organizations(ctx context.Context) ([]*core.Organization, error) {
	var os []organization
	if err := s.db.NewSelect().Model(&os).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "organization")
	}
	out := make([]*core.Organization, len(os))
	for i, o := range os {
		out[i] = &core.Organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt.UTC()}
	}
	return out, nil
}

// CreateAPIKey implements core.OrgStore.
func (s *Store) CreateAPIKey(ctx context.Context, k *core.APIKey) error {
	_, err := s.db.NewInsert().Model(&apiKey{ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Hash: k.Hash, CreatedAt: k.CreatedAt}).Exec(ctx)
	return translate(err, "api key")
}

// APIKeyByHash implements core.OrgStore.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (*core.APIKey, error) {
	var k apiKey
	if err := s.db.NewSelect().Model(&k).Where("hash = ?", hash).Scan(ctx); err != nil {
		return nil, translate(err, "api key")
	}
	return &core.APIKey{ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Hash: k.Hash, CreatedAt: k.CreatedAt.UTC()}, nil
}

func (m *site) core() *core.Site {
	return &core.Site{ID: m.ID, OrganizationID: m.OrganizationID, Name: m.Name, URL: m.URL, ProjectKey: m.ProjectKey, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// CreateSite implements core.SiteStore.
func (s *Store) CreateSite(ctx context.Context, x *core.Site) error {
	m := &site{ID: x.ID, OrganizationID: x.OrganizationID, Name: x.Name, URL: x.URL, ProjectKey: x.ProjectKey, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}
	_, err := s.db.NewInsert().Model(m).Exec(ctx)
	return translate(err, "site")
}

// Site implements core.SiteStore.
func (s *Store) Site(ctx context.Context, orgID, id string) (*core.Site, error) {
	var m site
	if err := s.locked(s.db.NewSelect().Model(&m).Where("id = ? AND organization_id = ?", id, orgID)).Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	return m.core(), nil
}

// SiteByProjectKey implements core.SiteStore.
func (s *Store) SiteByProjectKey(ctx context.Context, key string) (*core.Site, error) {
	var m site
	if err := s.db.NewSelect().Model(&m).Where("project_key = ?", key).Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	return m.core(), nil
}

// Sites implements core.SiteStore.
func (s *Store) Sites(ctx context.Context, orgID string) ([]*core.Site, error) {
	var ms []site
	if err := s.db.NewSelect().Model(&ms).Where("organization_id = ?", orgID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	out := make([]*core.Site, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// UpdateSite implements core.SiteStore.
func (s *Store) UpdateSite(ctx context.Context, x *core.Site) error {
	res, err := s.db.NewUpdate().Model((*site)(nil)).
		Set("name = ?", x.Name).Set("url = ?", x.URL).Set("updated_at = ?", x.UpdatedAt).
		Where("id = ?", x.ID).Exec(ctx)
	return mustAffect(res, err, "site")
}

// DeleteSite implements core.SiteStore. Foreign keys cascade to everything of the site.
func (s *Store) DeleteSite(ctx context.Context, id string) error {
	return s.InTx(ctx, func(tx core.Store) error {
		db := tx.(*Store).db
		// services reference categories without cascade; remove them first.
		if _, err := db.NewDelete().Model((*service)(nil)).Where("site_id = ?", id).Exec(ctx); err != nil {
			return translate(err, "site")
		}
		res, err := db.NewDelete().Model((*site)(nil)).Where("id = ?", id).Exec(ctx)
		return mustAffect(res, err, "site")
	})
}

// CreateBanner implements core.BannerStore.
func (s *Store) CreateBanner(ctx context.Context, b *core.Banner) error {
	_, err := s.db.NewInsert().Model(fromBanner(b)).Exec(ctx)
	return translate(err, "banner")
}

// Banner implements core.BannerStore.
func (s *Store) Banner(ctx context.Context, siteID string) (*core.Banner, error) {
	var m banner
	if err := s.locked(s.db.NewSelect().Model(&m).Where("site_id = ?", siteID)).Scan(ctx); err != nil {
		return nil, translate(err, "banner")
	}
	return m.core(), nil
}

// UpdateBanner implements core.BannerStore.
func (s *Store) UpdateBanner(ctx context.Context, b *core.Banner) error {
	res, err := s.db.NewUpdate().Model(fromBanner(b)).ExcludeColumn("id", "site_id", "created_at").
		Where("site_id = ?", b.SiteID).Exec(ctx)
	return mustAffect(res, err, "banner")
}

// CreateCategory implements core.CategoryStore.
func (s *Store) CreateCategory(ctx context.Context, c *core.Category) error {
	_, err := s.db.NewInsert().Model(fromCategory(c)).Exec(ctx)
	return translate(err, "category")
}

// Categories implements core.CategoryStore.
func (s *Store) Categories(ctx context.Context, siteID string) ([]*core.Category, error) {
	var ms []category
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).Order("sort_order", "created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	out := make([]*core.Category, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// Category implements core.CategoryStore.
func (s *Store) Category(ctx context.Context, siteID, id string) (*core.Category, error) {
	var m category
	if err := s.locked(s.db.NewSelect().Model(&m).Where("site_id = ? AND id = ?", siteID, id)).Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	return m.core(), nil
}

// CategoryBySlug implements core.CategoryStore.
func (s *Store) CategoryBySlug(ctx context.Context, siteID, slug string) (*core.Category, error) {
	var m category
	if err := s.db.NewSelect().Model(&m).Where("site_id = ? AND slug = ?", siteID, slug).Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	return m.core(), nil
}

// UpdateCategory implements core.CategoryStore.
func (s *Store) UpdateCategory(ctx context.Context, c *core.Category) error {
	res, err := s.db.NewUpdate().Model(fromCategory(c)).
		Column("name", "description", "name_translations", "description_translations", "sort_order", "updated_at").
		Where("site_id = ? AND id = ?", c.SiteID, c.ID).Exec(ctx)
	return mustAffect(res, err, "category")
}

// DeleteCategory implements core.CategoryStore.
func (s *Store) DeleteCategory(ctx context.Context, siteID, id string) error {
	res, err := s.db.NewDelete().Model((*category)(nil)).Where("site_id = ? AND id = ?", siteID, id).Exec(ctx)
	return mustAffect(res, err, "category")
}

// CreateService implements core.ServiceStore: the service and its cookies in one transaction.
func (s *Store) CreateService(ctx context.Context, x *core.Service) error {
	m, cookies := fromService(x)
	return s.InTx(ctx, func(tx core.Store) error {
		db := tx.(*Store).db
		if _, err := db.NewInsert().Model(m).Exec(ctx); err != nil {
			return translate(err, "service")
		}
		if len(cookies) > 0 {
			if _, err := db.NewInsert().Model(&cookies).Exec(ctx); err != nil {
				return translate(err, "cookie")
			}
		}
		return nil
	})
}

// Services implements core.ServiceStore.
func (s *Store) Services(ctx context.Context, siteID string) ([]*core.Service, error) {
	var ms []service
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "service")
	}
	return s.withCookies(ctx, ms)
}

// Service implements core.ServiceStore.
func (s *Store) Service(ctx context.Context, siteID, id string) (*core.Service, error) {
	var ms []service
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ? AND id = ?", siteID, id).Scan(ctx); err != nil {
		return nil, translate(err, "service")
	}
	if len(ms) == 0 {
		return nil, core.Errorf(core.CodeNotFound, "service not found")
	}
	out, err := s.withCookies(ctx, ms)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Store) withCookies(ctx context.Context, ms []service) ([]*core.Service, error) {
	out := make([]*core.Service, 0, len(ms))
	if len(ms) == 0 {
		return out, nil
	}
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	var cs []cookie
	if err := s.db.NewSelect().Model(&cs).Where("service_id IN (?)", bun.List(ids)).Order("service_id", "position").Scan(ctx); err != nil {
		return nil, translate(err, "cookie")
	}
	by := map[string][]cookie{}
	for _, c := range cs {
		by[c.ServiceID] = append(by[c.ServiceID], c)
	}
	for i := range ms {
		out = append(out, ms[i].core(by[ms[i].ID]))
	}
	return out, nil
}

// CountServicesInCategory implements core.ServiceStore.
func (s *Store) CountServicesInCategory(ctx context.Context, categoryID string) (int, error) {
	n, err := s.db.NewSelect().Model((*service)(nil)).Where("category_id = ?", categoryID).Count(ctx)
	return int(n), translate(err, "service")
}

// DeleteService implements core.ServiceStore; cookies cascade.
func (s *Store) DeleteService(ctx context.Context, siteID, id string) error {
	res, err := s.db.NewDelete().Model((*service)(nil)).Where("site_id = ? AND id = ?", siteID, id).Exec(ctx)
	return mustAffect(res, err, "service")
}

// CreateScan implements core.ScanStore.
func (s *Store) CreateScan(ctx context.Context, x *core.Scan) error {
	_, err := s.db.NewInsert().Model(fromScan(x)).Exec(ctx)
	return translate(err, "scan")
}

// Scan implements core.ScanStore.
func (s *Store) Scan(ctx context.Context, siteID, id string) (*core.Scan, error) {
	var m scan
	if err := s.db.NewSelect().Model(&m).Where("site_id = ? AND id = ?", siteID, id).Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// ScanByID implements core.ScanStore.
func (s *Store) ScanByID(ctx context.Context, id string) (*core.Scan, error) {
	var m scan
	// Locked inside a transaction on Postgres: scan transitions read and write in one.
	if err := s.locked(s.db.NewSelect().Model(&m).Where("id = ?", id)).Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// Scans implements core.ScanStore.
func (s *Store) Scans(ctx context.Context, siteID string) ([]*core.Scan, error) {
	var ms []scan
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).OrderExpr("created_at DESC, id DESC").Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	out := make([]*core.Scan, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// LatestScan implements core.ScanStore.
func (s *Store) LatestScan(ctx context.Context, siteID string, statuses ...string) (*core.Scan, error) {
	var m scan
	err := s.db.NewSelect().Model(&m).Where("site_id = ? AND status IN (?)", siteID, bun.List(statuses)).
		OrderExpr("created_at DESC, id DESC").Limit(1).Scan(ctx)
	if err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// UpdateScan implements core.ScanStore.
func (s *Store) UpdateScan(ctx context.Context, x *core.Scan) error {
	res, err := s.db.NewUpdate().Model(fromScan(x)).
		Column("status", "detected_services", "unrecognized_scripts", "page_errors", "pages_scanned", "error_message", "started_at", "finished_at").
		WherePK().Exec(ctx)
	return mustAffect(res, err, "scan")
}

// SQLTx returns the database/sql transaction of a store handed to an InTx function, or nil,
// so that a job queue on the same database can insert its job in it.
func (s *Store) SQLTx() *sql.Tx {
	if s.tx == nil {
		return nil
	}
	return s.tx.Tx
}

var _ core.SiteLister = (*Store)(nil)

// AllSites implements core.SiteLister: every organization's sites, ordered by ID.
func (s *Store) AllSites(ctx context.Context, afterID string, limit int) ([]*core.Site, error) {
	var ms []site
	q := s.db.NewSelect().Model(&ms).Order("id").Limit(int64(limit))
	if afterID != "" {
		q = q.Where("id > ?", afterID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	out := make([]*core.Site, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}
