// Recorded analytics script (trimmed): sends the page view, sets nothing.
navigator.sendBeacon('https://plausible.io/api/event', '{}');
