-- Single sign-on per organization (issue 33): an organization's own OpenID provider, set by
-- its owner. allowed_domains is a JSON array of lower-case email domains; client_secret is
-- kept to call the provider and never returned by the API.
CREATE TABLE IF NOT EXISTS sso_providers (
  organization_id UUID PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  issuer TEXT NOT NULL,
  client_id TEXT NOT NULL,
  client_secret TEXT NOT NULL,
  allowed_domains TEXT NOT NULL,
  default_role TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
