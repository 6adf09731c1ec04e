-- IAB TCF (issue 29): a banner's TCF settings (core.TCFSettings), one JSON object.
ALTER TABLE banners ADD COLUMN tcf TEXT NOT NULL DEFAULT '{"enabled":false,"vendorIds":[],"publisherCountryCode":"","specialFeatures":[],"publisherRestrictions":[],"googleAtpIds":[]}';
