-- API keys carry a role and optionally the sites they are limited to (issue 33). Keys made
-- before roles existed keep acting as owners.
ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';

--bun:split

-- site_ids is a JSON array of site IDs; NULL allows every site of the organization.
ALTER TABLE api_keys ADD COLUMN site_ids TEXT;
