// A chat widget no library entry knows, loaded three seconds after the page.
window.LateChat = { ready: true };
