ALTER TABLE banners ADD COLUMN reopen_button BOOLEAN NOT NULL DEFAULT TRUE;

--bun:split

ALTER TABLE banners ADD COLUMN reopen_position TEXT NOT NULL DEFAULT 'bottom_left';

--bun:split

ALTER TABLE banners ADD COLUMN reopen_label TEXT;

--bun:split

ALTER TABLE banners ADD COLUMN cookie_domain TEXT;
