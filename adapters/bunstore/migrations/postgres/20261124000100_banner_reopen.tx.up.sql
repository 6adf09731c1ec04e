ALTER TABLE banners
  ADD COLUMN reopen_button BOOLEAN NOT NULL DEFAULT TRUE,
  ADD COLUMN reopen_position TEXT NOT NULL DEFAULT 'bottom_left',
  ADD COLUMN reopen_label TEXT,
  ADD COLUMN cookie_domain TEXT;
