// A third-party script no library entry knows (recorded, trimmed).
window.__loaded = (window.__loaded || 0) + 1;
