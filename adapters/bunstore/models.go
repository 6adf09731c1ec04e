package bunstore

import (
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
)

// The models mirror the tables; conversion to and from core types is explicit so that the
// domain carries no storage tags.

type organization struct {
	bun.BaseModel `bun:"table:organizations"`
	ID            string    `bun:"id,pk"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

type apiKey struct {
	bun.BaseModel  `bun:"table:api_keys"`
	ID             string    `bun:"id,pk"`
	OrganizationID string    `bun:"organization_id"`
	Name           string    `bun:"name"`
	Hash           string    `bun:"hash"`
	CreatedAt      time.Time `bun:"created_at"`
}

type site struct {
	bun.BaseModel  `bun:"table:sites"`
	ID             string    `bun:"id,pk"`
	OrganizationID string    `bun:"organization_id"`
	Name           string    `bun:"name"`
	URL            string    `bun:"url"`
	ProjectKey     string    `bun:"project_key"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

type banner struct {
	bun.BaseModel         `bun:"table:banners"`
	ID                    string                       `bun:"id,pk"`
	SiteID                string                       `bun:"site_id"`
	Template              string                       `bun:"template"`
	Position              string                       `bun:"position"`
	Colors                map[string]string            `bun:"colors,type:jsonb"`
	TextOverrides         map[string]string            `bun:"text_overrides,type:jsonb"`
	TextTranslations      map[string]map[string]string `bun:"text_translations,type:jsonb"`
	LogoURL               *string                      `bun:"logo_url"`
	PrivacyPolicyURL      *string                      `bun:"privacy_policy_url"`
	CookiePolicyURL       *string                      `bun:"cookie_policy_url"`
	DefaultBehavior       string                       `bun:"default_behavior"`
	CloseButtonBehavior   string                       `bun:"close_button_behavior"`
	CookieExpirationDays  int                          `bun:"cookie_expiration_days"`
	ConsentVersion        int                          `bun:"consent_version"`
	SiteWideBlocking      bool                         `bun:"site_wide_blocking"`
	GCMExcludeVendor      bool                         `bun:"gcm_exclude_vendor"`
	StorefrontIntegration bool                         `bun:"storefront_integration"`
	ReopenButton          bool                         `bun:"reopen_button"`
	ReopenPosition        string                       `bun:"reopen_position"`
	ReopenLabel           *string                      `bun:"reopen_label"`
	CookieDomain          *string                      `bun:"cookie_domain"`
	CreatedAt             time.Time                    `bun:"created_at"`
	UpdatedAt             time.Time                    `bun:"updated_at"`
}

type category struct {
	bun.BaseModel           `bun:"table:categories"`
	ID                      string            `bun:"id,pk"`
	SiteID                  string            `bun:"site_id"`
	Slug                    string            `bun:"slug"`
	Name                    string            `bun:"name"`
	Description             string            `bun:"description"`
	NameTranslations        map[string]string `bun:"name_translations,type:jsonb"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	IsRequired              bool              `bun:"is_required"`
	IsDefault               bool              `bun:"is_default"`
	SortOrder               int               `bun:"sort_order"`
	CreatedAt               time.Time         `bun:"created_at"`
	UpdatedAt               time.Time         `bun:"updated_at"`
}

type service struct {
	bun.BaseModel           `bun:"table:services"`
	ID                      string            `bun:"id,pk"`
	SiteID                  string            `bun:"site_id"`
	CategoryID              string            `bun:"category_id"`
	Slug                    string            `bun:"slug"`
	Label                   string            `bun:"label"`
	Description             string            `bun:"description"`
	LabelTranslations       map[string]string `bun:"label_translations,type:jsonb"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	ServiceURL              *string           `bun:"service_url"`
	PrivacyPolicyURL        *string           `bun:"privacy_policy_url"`
	LogoURL                 *string           `bun:"logo_url"`
	BlockingPatterns        []string          `bun:"blocking_patterns,type:jsonb"`
	CreatedAt               time.Time         `bun:"created_at"`
	UpdatedAt               time.Time         `bun:"updated_at"`
}

type cookie struct {
	bun.BaseModel           `bun:"table:cookies"`
	ID                      string            `bun:"id,pk"`
	ServiceID               string            `bun:"service_id"`
	Position                int               `bun:"position"`
	Name                    string            `bun:"name"`
	Description             string            `bun:"description"`
	Duration                string            `bun:"duration"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	CreatedAt               time.Time         `bun:"created_at"`
}

type scan struct {
	bun.BaseModel       `bun:"table:scans"`
	ID                  string                    `bun:"id,pk"`
	SiteID              string                    `bun:"site_id"`
	URL                 string                    `bun:"url"`
	URLs                []string                  `bun:"urls,type:jsonb"`
	Status              string                    `bun:"status"`
	DetectedServices    []core.DetectedService    `bun:"detected_services,type:jsonb"`
	UnrecognizedScripts []core.UnrecognizedScript `bun:"unrecognized_scripts,type:jsonb"`
	PagesScanned        int                       `bun:"pages_scanned"`
	PageErrors          []core.PageError          `bun:"page_errors,type:jsonb"`
	ErrorMessage        *string                   `bun:"error_message"`
	CreatedAt           time.Time                 `bun:"created_at"`
	StartedAt           *time.Time                `bun:"started_at"`
	FinishedAt          *time.Time                `bun:"finished_at"`
}

type consentRecord struct {
	bun.BaseModel       `bun:"table:consent_records"`
	ID                  string          `bun:"id,pk"`
	SiteID              string          `bun:"site_id"`
	VisitorID           string          `bun:"visitor_id"`
	IPCountry           string          `bun:"ip_country"`
	Jurisdiction        string          `bun:"jurisdiction"`
	CategoriesConsented map[string]bool `bun:"categories_consented,type:jsonb"`
	GPCSignal           bool            `bun:"gpc_signal"`
	DoNotSell           bool            `bun:"do_not_sell"`
	ConsentVersion      int             `bun:"consent_version"`
	Action              string          `bun:"action"`
	CreatedAt           time.Time       `bun:"created_at"`
}
