package banner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gosimple/unidecode"
	"golang.org/x/text/unicode/norm"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/library"
)

// Category groups services a visitor consents to together.
type Category struct {
	ID                      string            `json:"id"`
	SiteID                  string            `json:"siteId"`
	Slug                    string            `json:"slug"`
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	NameTranslations        map[string]string `json:"nameTranslations"`
	DescriptionTranslations map[string]string `json:"descriptionTranslations"`
	IsRequired              bool              `json:"isRequired"`
	IsDefault               bool              `json:"isDefault"`
	SortOrder               int               `json:"sortOrder"`
	CreatedAt               time.Time         `json:"createdAt"`
	UpdatedAt               time.Time         `json:"updatedAt"`
}

// CategoryStore persists categories.
type CategoryStore interface {
	// CreateCategory stores a category; conflict when the site has its slug.
	CreateCategory(ctx context.Context, c *Category) error
	// Categories lists a site's categories by sort order, then creation.
	Categories(ctx context.Context, siteID string) ([]*Category, error)
	// Category finds a category of the site; not_found when there is none.
	Category(ctx context.Context, siteID, id string) (*Category, error)
	// CategoryBySlug finds a category of the site by slug; not_found when there is none.
	CategoryBySlug(ctx context.Context, siteID, slug string) (*Category, error)
	// UpdateCategory stores name, description, translations, sort order and updatedAt;
	// not_found when it does not exist.
	UpdateCategory(ctx context.Context, c *Category) error
	// DeleteCategory removes a category; not_found when it does not exist.
	DeleteCategory(ctx context.Context, siteID, id string) error
}

// FallbackCategory is where a scan's import puts a service whose category the site lacks.
const FallbackCategory = library.CategoryMarketing

// Limits of categories and translations, stated by the API's OpenAPI document (pinned by its
// schemalimits test).
const (
	MaxCategoryName        = 100
	MaxCategoryDescription = 500
	MaxTranslation         = 2000
	MaxSlug                = 100
)

// DefaultCategories are created with every site; their slugs are the library's categories.
var DefaultCategories = []Category{
	{Slug: library.CategoryEssential, Name: "Essential", IsRequired: true, SortOrder: 0,
		Description: "Needed for the website to work: security, load balancing, remembering your choices. These cannot be switched off."},
	{Slug: library.CategoryStatistics, Name: "Statistics", SortOrder: 1,
		Description: "Help us understand how visitors use the website by collecting information anonymously or in aggregate."},
	{Slug: library.CategoryMarketing, Name: "Marketing", SortOrder: 2,
		Description: "Used to show relevant advertising and to measure campaigns, often across websites."},
}

// CategoryInput creates or changes a category. Nil fields stay unchanged on update.
type CategoryInput struct {
	Name                    *string
	Description             *string
	SortOrder               *int
	NameTranslations        map[string]string
	DescriptionTranslations map[string]string
}

func (in CategoryInput) validate(create bool) error {
	if create && in.Name == nil {
		return core.FieldErrorf("name", "is required")
	}
	if in.Name != nil {
		if n := utf8.RuneCountInString(*in.Name); n < 1 || n > MaxCategoryName {
			return core.FieldErrorf("name", "must be 1 to %d characters", MaxCategoryName)
		}
		if strings.TrimSpace(*in.Name) == "" {
			return core.FieldErrorf("name", "must not be blank")
		}
		if err := core.CheckText("name", *in.Name); err != nil {
			return err
		}
	}
	if in.Description != nil {
		if err := maxLen("description", *in.Description, MaxCategoryDescription); err != nil {
			return err
		}
	}
	if in.SortOrder != nil {
		if err := core.CheckSortOrder("sortOrder", *in.SortOrder); err != nil {
			return err
		}
	}
	if err := validateTranslations("nameTranslations", in.NameTranslations); err != nil {
		return err
	}
	return validateTranslations("descriptionTranslations", in.DescriptionTranslations)
}

func validateTranslations(field string, m map[string]string) error {
	for lang, v := range m {
		if err := CheckLanguage(field, lang); err != nil {
			return err
		}
		if err := maxLen(field+"."+lang, v, MaxTranslation); err != nil {
			return err
		}
	}
	return nil
}

// maxLen checks a free text field: text a store can hold (CheckText), at most max runes.
func maxLen(field, v string, max int) error {
	if err := core.CheckText(field, v); err != nil {
		return err
	}
	if utf8.RuneCountInString(v) > max {
		return core.FieldErrorf(field, "must be at most %d characters", max)
	}
	return nil
}

// Slugify turns a display name into a URL-safe slug: lower-case ASCII letters and digits
// separated by single hyphens. Names in any script are transliterated first ("Préférences
// sociales" → "preferences-sociales", "Категория" → "kategoriia", "中文类别" →
// "zhong-wen-lei-bie"); a name with nothing to transliterate (emoji, symbols) gets a short
// slug derived from its hash ("🍪" → "category-" and 8 hex digits), so that every non-blank
// name has one.
func Slugify(name string) string {
	if s := asciiSlug(unidecode.Unidecode(name)); s != "" {
		return s
	}
	if strings.TrimSpace(name) == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(name))
	return "category-" + hex.EncodeToString(sum[:4])
}

// asciiSlug keeps the ASCII letters and digits of s, lower-cased, with single hyphens
// between the runs, at most MaxSlug bytes.
func asciiSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.Is(unicode.Mn, r):
			// combining accent from the decomposition: drop it
		default:
			dash = true
		}
		if b.Len() >= MaxSlug {
			break
		}
	}
	out := b.String()
	if len(out) > MaxSlug {
		out = out[:MaxSlug]
	}
	return strings.TrimRight(out, "-")
}

// Categories lists a site's categories.
func (categories *Categories) Categories(ctx context.Context, orgID, siteID string) ([]*Category, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := categories.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return categories.Store.Categories(ctx, siteID)
}

// CreateCategory adds a custom category. Its slug comes from the name, made unique on the site
// with a numeric suffix ("social", "social-2").
func (categories *Categories) CreateCategory(ctx context.Context, orgID, siteID string, in CategoryInput) (*Category, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	if err := in.validate(true); err != nil {
		return nil, err
	}
	defer categories.Views.Forget(siteID)
	var c *Category
	err := categories.Store.InTx(ctx, func(tx Store) error {
		// Reading the site in the transaction locks it on stores that lock rows, so that two
		// categories created at once with the same name get distinct slugs.
		if _, err := tx.Site(ctx, orgID, siteID); err != nil {
			return err
		}
		cats, err := tx.Categories(ctx, siteID)
		if err != nil {
			return err
		}
		taken := map[string]bool{}
		order := 0
		for _, x := range cats {
			taken[x.Slug] = true
			order = max(order, x.SortOrder+1)
		}
		base := Slugify(*in.Name)
		slug := truncSlug(base, MaxCategorySlug)
		for i := 2; taken[slug]; i++ {
			suffix := "-" + strconv.Itoa(i)
			slug = truncSlug(base, MaxCategorySlug-len(suffix)) + suffix
		}
		now := categories.Clock.Now()
		c = &Category{
			ID: categories.NewID(), SiteID: siteID, Slug: slug, Name: *in.Name, Description: core.Deref(in.Description),
			NameTranslations: orEmpty(in.NameTranslations), DescriptionTranslations: orEmpty(in.DescriptionTranslations),
			SortOrder: order, CreatedAt: now, UpdatedAt: now,
		}
		if in.SortOrder != nil {
			c.SortOrder = *in.SortOrder
		}
		if err := tx.CreateCategory(ctx, c); err != nil {
			return err
		}
		return categories.Events.ChangedIn(ctx, tx, siteID, "categories", categories.Audit.Record(ctx, tx, orgID, siteID, core.AuditCategoryCreate, c.ID, nil, c))
	})
	return c, err
}

// UpdateCategory changes a category. Its slug stays: services, blocking rules and stored
// consents refer to it.
func (categories *Categories) UpdateCategory(ctx context.Context, orgID, siteID, id string, in CategoryInput) (*Category, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	if err := in.validate(false); err != nil {
		return nil, err
	}
	if _, err := categories.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	defer categories.Views.Forget(siteID)
	var c *Category
	err := categories.Store.InTx(ctx, func(tx Store) error {
		var err error
		if c, err = tx.Category(ctx, siteID, id); err != nil {
			return err
		}
		old := core.Snapshot(c)
		if in.Name != nil {
			c.Name = *in.Name
		}
		if in.Description != nil {
			c.Description = *in.Description
		}
		if in.SortOrder != nil {
			c.SortOrder = *in.SortOrder
		}
		if in.NameTranslations != nil {
			c.NameTranslations = in.NameTranslations
		}
		if in.DescriptionTranslations != nil {
			c.DescriptionTranslations = in.DescriptionTranslations
		}
		c.UpdatedAt = categories.Clock.Now()
		if err := tx.UpdateCategory(ctx, c); err != nil {
			return err
		}
		return categories.Events.ChangedIn(ctx, tx, siteID, "categories", categories.Audit.Record(ctx, tx, orgID, siteID, core.AuditCategoryUpdate, c.ID, old, c))
	})
	return c, err
}

// DeleteCategory removes a custom category. Default categories cannot be deleted, nor can a
// category that still has services (delete or re-import them elsewhere first), so that no
// service is left without a category.
func (categories *Categories) DeleteCategory(ctx context.Context, orgID, siteID, id string) error {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return err
	}
	if _, err := categories.Store.Site(ctx, orgID, siteID); err != nil {
		return err
	}
	defer categories.Views.Forget(siteID)
	return categories.Store.InTx(ctx, func(tx Store) error {
		c, err := tx.Category(ctx, siteID, id)
		if err != nil {
			return err
		}
		if c.IsDefault {
			return core.Errorf(core.CodeInvalid, "category %q is a default category and cannot be deleted", c.Slug)
		}
		n, err := tx.CountServicesInCategory(ctx, c.ID)
		if err != nil {
			return err
		}
		if n > 0 {
			return core.Errorf(core.CodeInvalid, "category %q still has %d services: delete them first", c.Slug, n)
		}
		if err := tx.DeleteCategory(ctx, siteID, id); err != nil {
			return err
		}
		return categories.Events.ChangedIn(ctx, tx, siteID, "categories", categories.Audit.Record(ctx, tx, orgID, siteID, core.AuditCategoryDelete, c.ID, c, nil))
	})
}

// truncSlug cuts a slug to at most n bytes without leaving a trailing hyphen.
func truncSlug(s string, n int) string {
	if len(s) > n {
		s = strings.TrimRight(s[:n], "-")
	}
	return s
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Categories are the use cases of a site's consent categories.
type Categories struct {
	Store  Store
	Clock  core.Clock
	NewID  func() string
	Audit  core.Auditor
	Events *event.Publisher
	Views  *PublicViews
}
