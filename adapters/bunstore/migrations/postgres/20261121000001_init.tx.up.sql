-- Runs in one transaction (.tx.up.sql), recorded in it. IF NOT EXISTS lets it complete a
-- schema that a process killed during its first start left half created before migrations
-- were transactional.
CREATE TABLE IF NOT EXISTS organizations (
  id UUID PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE TABLE IF NOT EXISTS api_keys (
  id UUID PRIMARY KEY,
  organization_id UUID NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE TABLE IF NOT EXISTS sites (
  id UUID PRIMARY KEY,
  organization_id UUID NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  project_key TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS sites_organization_id ON sites (organization_id, created_at);

--bun:split

CREATE TABLE IF NOT EXISTS banners (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL UNIQUE REFERENCES sites(id) ON DELETE CASCADE,
  template TEXT NOT NULL,
  position TEXT NOT NULL,
  colors JSONB NOT NULL,
  text_overrides JSONB NOT NULL,
  text_translations JSONB NOT NULL,
  logo_url TEXT,
  privacy_policy_url TEXT,
  cookie_policy_url TEXT,
  default_behavior TEXT NOT NULL,
  close_button_behavior TEXT NOT NULL,
  cookie_expiration_days INTEGER NOT NULL,
  consent_version INTEGER NOT NULL,
  site_wide_blocking BOOLEAN NOT NULL,
  gcm_exclude_vendor BOOLEAN NOT NULL,
  storefront_integration BOOLEAN NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE TABLE IF NOT EXISTS categories (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  name_translations JSONB NOT NULL,
  description_translations JSONB NOT NULL,
  is_required BOOLEAN NOT NULL,
  is_default BOOLEAN NOT NULL,
  sort_order INTEGER NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (site_id, slug)
);

--bun:split

CREATE TABLE IF NOT EXISTS services (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  category_id UUID NOT NULL REFERENCES categories(id),
  slug TEXT NOT NULL,
  label TEXT NOT NULL,
  description TEXT NOT NULL,
  label_translations JSONB NOT NULL,
  description_translations JSONB NOT NULL,
  service_url TEXT,
  privacy_policy_url TEXT,
  logo_url TEXT,
  blocking_patterns JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (site_id, slug)
);

--bun:split

CREATE INDEX IF NOT EXISTS services_category_id ON services (category_id);

--bun:split

CREATE TABLE IF NOT EXISTS cookies (
  id UUID PRIMARY KEY,
  service_id UUID NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  duration TEXT NOT NULL,
  description_translations JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS cookies_service_id ON cookies (service_id, position);

--bun:split

CREATE TABLE IF NOT EXISTS scans (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  urls JSONB NOT NULL,
  status TEXT NOT NULL,
  detected_services JSONB,
  unrecognized_scripts JSONB,
  pages_scanned INTEGER NOT NULL DEFAULT 0,
  error_message TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  started_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ
);

--bun:split

CREATE INDEX IF NOT EXISTS scans_site_created ON scans (site_id, created_at DESC, id DESC);

--bun:split

CREATE TABLE IF NOT EXISTS consent_records (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  visitor_id TEXT NOT NULL,
  ip_country TEXT NOT NULL,
  jurisdiction TEXT NOT NULL,
  categories_consented JSONB NOT NULL,
  gpc_signal BOOLEAN NOT NULL,
  do_not_sell BOOLEAN NOT NULL,
  consent_version INTEGER NOT NULL,
  action TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS consent_records_site_created ON consent_records (site_id, created_at DESC, id DESC);
