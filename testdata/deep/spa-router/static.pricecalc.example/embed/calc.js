// A third-party widget no library entry knows.
