// Recorded reviews widget loader (trimmed).
