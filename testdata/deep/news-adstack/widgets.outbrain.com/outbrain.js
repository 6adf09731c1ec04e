// Recorded widget (trimmed).
