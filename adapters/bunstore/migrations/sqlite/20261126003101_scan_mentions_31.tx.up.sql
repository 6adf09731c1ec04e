-- Deep scans (issue 31): services the pages only name, kept apart from detections.
ALTER TABLE scans ADD COLUMN mentions TEXT;
