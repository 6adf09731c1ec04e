package banner

import (
	"context"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/library"
)

// Service is a third-party tool used on a site, with the cookies it sets.
type Service struct {
	ID                      string            `json:"id"`
	SiteID                  string            `json:"siteId"`
	CategoryID              string            `json:"categoryId"`
	Slug                    string            `json:"slug"`
	Label                   string            `json:"label"`
	Description             string            `json:"description"`
	LabelTranslations       map[string]string `json:"labelTranslations"`
	DescriptionTranslations map[string]string `json:"descriptionTranslations"`
	ServiceURL              *string           `json:"serviceUrl"`
	PrivacyPolicyURL        *string           `json:"privacyPolicyUrl"`
	LogoURL                 *string           `json:"logoUrl"`
	// BlockingPatterns are the URL patterns (library pattern language) held back until the
	// service's category is allowed; empty when no blocking rule was added for it.
	BlockingPatterns []string  `json:"-"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	Cookies          []*Cookie `json:"cookies"`
}

// Cookie is a cookie set by a service.
type Cookie struct {
	ID                      string            `json:"id"`
	ServiceID               string            `json:"serviceId"`
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	Duration                string            `json:"duration"`
	DescriptionTranslations map[string]string `json:"descriptionTranslations"`
	CreatedAt               time.Time         `json:"createdAt"`
}

// ServiceStore persists services and their cookies.
type ServiceStore interface {
	// CreateService stores a service with its cookies; conflict when the site has its slug.
	CreateService(ctx context.Context, s *Service) error
	// Services lists a site's services with their cookies, oldest first.
	Services(ctx context.Context, siteID string) ([]*Service, error)
	// Service finds a service of the site with its cookies; not_found when there is none.
	Service(ctx context.Context, siteID, id string) (*Service, error)
	// CountServicesInCategory counts the services of a category.
	CountServicesInCategory(ctx context.Context, categoryID string) (int, error)
	// DeleteService removes a service and its cookies; not_found when it does not exist.
	DeleteService(ctx context.Context, siteID, id string) error
}

// Limits of services and cookies, stated by the API's OpenAPI document (pinned by its
// schemalimits test).
const (
	MaxServiceLabel       = 200
	MaxServiceDescription = 1000
	MaxCategorySlug       = 50
	MaxCookieName         = 200
	MaxCookieDuration     = 100
	MaxCookieDescription  = 500
	MaxServiceCookies     = 500
)

var slugRegexp = regexp.MustCompile(core.SlugPattern)

// ServiceInput creates a custom service.
type ServiceInput struct {
	Slug                    string
	Label                   string
	CategorySlug            string
	Description             string
	LabelTranslations       map[string]string
	DescriptionTranslations map[string]string
	ServiceURL              *string
	Cookies                 []CookieInput
}

// CookieInput is a cookie of a custom service.
type CookieInput struct {
	Name                    string
	Duration                string
	Description             string
	DescriptionTranslations map[string]string
}

func (in ServiceInput) validate() error {
	if n := utf8.RuneCountInString(in.Slug); n < 1 || n > MaxSlug || !slugRegexp.MatchString(in.Slug) {
		return core.FieldErrorf("slug", "must be 1 to %d characters of a-z, 0-9 and -", MaxSlug)
	}
	if n := utf8.RuneCountInString(in.Label); n < 1 || n > MaxServiceLabel {
		return core.FieldErrorf("label", "must be 1 to %d characters", MaxServiceLabel)
	}
	if err := core.CheckText("label", in.Label); err != nil {
		return err
	}
	if err := validateCategorySlug(in.CategorySlug, true); err != nil {
		return err
	}
	if err := maxLen("description", in.Description, MaxServiceDescription); err != nil {
		return err
	}
	if err := validateTranslations("labelTranslations", in.LabelTranslations); err != nil {
		return err
	}
	if err := validateTranslations("descriptionTranslations", in.DescriptionTranslations); err != nil {
		return err
	}
	if in.ServiceURL != nil {
		if err := core.ValidateHTTPURL("serviceUrl", *in.ServiceURL); err != nil {
			return err
		}
	}
	if len(in.Cookies) > MaxServiceCookies {
		return core.FieldErrorf("cookies", "at most %d cookies", MaxServiceCookies)
	}
	for i, c := range in.Cookies {
		if n := utf8.RuneCountInString(c.Name); n < 1 || n > MaxCookieName {
			return core.FieldErrorf(fmt.Sprintf("cookies[%d].name", i), "must be 1 to %d characters", MaxCookieName)
		}
		if n := utf8.RuneCountInString(c.Duration); n < 1 || n > MaxCookieDuration {
			return core.FieldErrorf(fmt.Sprintf("cookies[%d].duration", i), "must be 1 to %d characters", MaxCookieDuration)
		}
		if utf8.RuneCountInString(c.Description) > MaxCookieDescription {
			return core.FieldErrorf(fmt.Sprintf("cookies[%d].description", i), "must be at most %d characters", MaxCookieDescription)
		}
		for field, v := range map[string]string{"name": c.Name, "duration": c.Duration, "description": c.Description} {
			if err := core.CheckText(fmt.Sprintf("cookies[%d].%s", i, field), v); err != nil {
				return err
			}
		}
		if err := validateTranslations("cookies.descriptionTranslations", c.DescriptionTranslations); err != nil {
			return err
		}
	}
	return nil
}

func validateCategorySlug(s string, required bool) error {
	n := utf8.RuneCountInString(s)
	if (required || s != "") && (n < 1 || n > MaxCategorySlug) {
		return core.FieldErrorf("categorySlug", "must be 1 to %d characters", MaxCategorySlug)
	}
	if err := core.CheckText("categorySlug", s); err != nil {
		return err
	}
	return nil
}

// Services lists a site's services with their cookies.
func (services *Services) Services(ctx context.Context, orgID, siteID string) ([]*Service, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := services.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return services.Store.Services(ctx, siteID)
}

// CreateService adds a custom service with its cookies.
func (services *Services) CreateService(ctx context.Context, orgID, siteID string, in ServiceInput) (*Service, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	if _, err := services.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	defer services.Views.Forget(siteID)
	cat, err := services.categoryForService(ctx, siteID, in.CategorySlug)
	if err != nil {
		return nil, err
	}
	now := services.Clock.Now()
	s := &Service{
		ID: services.NewID(), SiteID: siteID, CategoryID: cat.ID, Slug: in.Slug, Label: in.Label,
		Description: in.Description, LabelTranslations: orEmpty(in.LabelTranslations),
		DescriptionTranslations: orEmpty(in.DescriptionTranslations), ServiceURL: in.ServiceURL,
		CreatedAt: now, UpdatedAt: now, Cookies: []*Cookie{},
	}
	for _, c := range in.Cookies {
		s.Cookies = append(s.Cookies, &Cookie{
			ID: services.NewID(), ServiceID: s.ID, Name: c.Name, Duration: c.Duration, Description: c.Description,
			DescriptionTranslations: orEmpty(c.DescriptionTranslations), CreatedAt: now,
		})
	}
	err = services.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateService(ctx, s); err != nil {
			return err
		}
		return services.Audit.Record(ctx, tx, orgID, siteID, core.AuditServiceCreate, s.ID, nil, s)
	})
	if core.IsConflict(err) {
		return nil, core.Errorf(core.CodeConflict, "service %q already exists on this site", in.Slug)
	}
	if err != nil {
		return nil, err
	}
	services.Events.ConfigChanged(ctx, siteID, "services")
	return s, nil
}

// ImportResult is what importing or configuring services created.
type ImportResult struct {
	Services           []*Service
	BlockingRulesAdded int
}

// ImportService adds a library service to the site with all its documented cookies and the
// blocking rule that holds its scripts back until consent. categorySlug overrides the
// library's category when not empty.
func (services *Services) ImportService(ctx context.Context, orgID, siteID, slug, categorySlug string) (*ImportResult, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	if n := len([]rune(slug)); n < 1 || n > MaxSlug {
		return nil, core.FieldErrorf("slug", "must be 1 to %d characters", MaxSlug)
	}
	if err := validateCategorySlug(categorySlug, false); err != nil {
		return nil, err
	}
	if _, err := services.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	defer services.Views.Forget(siteID)
	lib, ok := services.Catalog.Service(slug)
	if !ok {
		return nil, core.Errorf(core.CodeNotFound, "library service %q not found", slug)
	}
	if categorySlug == "" {
		categorySlug = lib.Category
	}
	cat, err := services.categoryForService(ctx, siteID, categorySlug)
	if err != nil {
		return nil, err
	}
	s, rules := services.Importer.ServiceFromLibrary(lib.Slug, lib.Label, siteID, cat)
	err = services.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateService(ctx, s); err != nil {
			return err
		}
		return services.Audit.Record(ctx, tx, orgID, siteID, core.AuditServiceImport, s.ID, nil, s)
	})
	if core.IsConflict(err) {
		return nil, core.Errorf(core.CodeConflict, "service %q already exists on this site", slug)
	}
	if err != nil {
		return nil, err
	}
	services.Events.ConfigChanged(ctx, siteID, "services")
	return &ImportResult{Services: []*Service{s}, BlockingRulesAdded: rules}, nil
}

// Importer makes site services from the catalog's entries, for imports and scans.
type Importer struct {
	Catalog core.Catalog
	Clock   core.Clock
	NewID   func() string
}

// ServiceFromLibrary builds a site service from the catalog entry slug (or, when the catalog
// no longer has it, a bare service labelled label). It returns the number of blocking rules
// the service carries: none in a required category, for a service a built-in rule covers, or
// one without known patterns.
func (im Importer) ServiceFromLibrary(slug, label, siteID string, cat *Category) (*Service, int) {
	now := im.Clock.Now()
	s := &Service{
		ID: im.NewID(), SiteID: siteID, CategoryID: cat.ID, Slug: slug, Label: label,
		LabelTranslations: map[string]string{}, DescriptionTranslations: map[string]string{},
		CreatedAt: now, UpdatedAt: now, Cookies: []*Cookie{},
	}
	lib, ok := im.Catalog.Service(slug)
	if !ok {
		return s, 0
	}
	s.Label, s.Description = lib.Label, lib.Description
	s.ServiceURL, s.PrivacyPolicyURL, s.LogoURL = nonEmpty(lib.ServiceURL), nonEmpty(lib.PrivacyPolicyURL), lib.Logo
	for _, c := range lib.Cookies {
		s.Cookies = append(s.Cookies, &Cookie{
			ID: im.NewID(), ServiceID: s.ID, Name: c.Name, Duration: c.Duration, Description: c.Description,
			DescriptionTranslations: map[string]string{}, CreatedAt: now,
		})
	}
	patterns := append(append([]string{}, lib.Scripts...), lib.Resources...)
	if cat.IsRequired || lib.BuiltinBlocking || len(patterns) == 0 {
		return s, 0
	}
	s.BlockingPatterns = patterns
	return s, 1
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (services *Services) categoryForService(ctx context.Context, siteID, slug string) (*Category, error) {
	cat, err := services.Store.CategoryBySlug(ctx, siteID, slug)
	if core.IsNotFound(err) {
		return nil, core.FieldErrorf("categorySlug", "category %q not found on this site", slug)
	}
	return cat, err
}

// DeleteService removes a service and its cookies.
func (services *Services) DeleteService(ctx context.Context, orgID, siteID, id string) error {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return err
	}
	if _, err := services.Store.Site(ctx, orgID, siteID); err != nil {
		return err
	}
	defer services.Views.Forget(siteID)
	return services.Store.InTx(ctx, func(tx Store) error {
		old, err := tx.Service(ctx, siteID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteService(ctx, siteID, id); err != nil {
			return err
		}
		return services.Events.ChangedIn(ctx, tx, siteID, "services", services.Audit.Record(ctx, tx, orgID, siteID, core.AuditServiceDelete, id, old, nil))
	})
}

// LibraryServices searches the catalog; an empty q lists it all.
func (lib *Library) LibraryServices(q string) []*library.Service { return lib.Catalog.Search(q) }

// LibraryService returns one catalog entry; not_found when the catalog has none.
func (lib *Library) LibraryService(slug string) (*library.Service, error) {
	s, ok := lib.Catalog.Service(slug)
	if !ok {
		return nil, core.Errorf(core.CodeNotFound, "library service %q not found", slug)
	}
	return s, nil
}

// Services are the use cases of the services (vendors) configured on a site.
type Services struct {
	Store    Store
	Catalog  core.Catalog
	Clock    core.Clock
	NewID    func() string
	Audit    core.Auditor
	Events   *event.Publisher
	Views    *PublicViews
	Importer Importer
}

// Library gives read access to the catalog of known services.
type Library struct {
	Catalog core.Catalog
}
