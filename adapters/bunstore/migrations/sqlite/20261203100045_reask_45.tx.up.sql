-- Refusals that last (issue 45): how long a refusal keeps the banner away, in days; NULL takes
-- the default of each visitor's rule's behaviour (core/banner/reask.go).
ALTER TABLE banners ADD COLUMN reask_after_reject_days INTEGER;
