// The app's bundle (trimmed): a client-side router. Nothing in the HTML links anywhere; the
// navigation is rendered after hydration, third-party scripts come with the routes.
const load = (src) => new Promise((ok) => { const s = document.createElement('script'); s.src = src; s.async = true; s.onload = s.onerror = ok; document.head.appendChild(s); });
const routes = {
  '/': () => `<h1>Ledgerly</h1><p>Books that balance themselves.</p>`,
  '/welcome': () => { load('https://cdn.tourguide.example/v2/tour.js'); return `<h1>Welcome</h1>`; },
  '/pricing': () => { load('https://static.pricecalc.example/embed/calc.js'); return `<h1>Pricing</h1>`; },
  '/careers': () => {
    window._linkedin_partner_id = "7781234";
    load('https://snap.licdn.com/li.lms-analytics/insight.min.js');
    return `<h1>Careers</h1>`;
  },
};
function render() {
  const view = routes[location.pathname] || routes['/'];
  document.getElementById('app').innerHTML =
    `<nav><a href="/pricing" data-router>Pricing</a> <span class="link" data-to="/careers">Careers</span></nav>` + view();
  document.querySelectorAll('a[data-router]').forEach((a) => a.addEventListener('click', (e) => { e.preventDefault(); history.pushState({}, '', a.getAttribute('href')); render(); }));
  document.querySelectorAll('[data-to]').forEach((el) => el.addEventListener('click', () => { history.pushState({}, '', el.dataset.to); render(); }));
}
// Hydration: the app renders a moment after load, then loads its support widget, and sends a
// first-time visitor to the welcome tour by client-side navigation.
window.addEventListener('load', () => setTimeout(() => {
  render();
  load('https://widget.helpbubble.example/loader.js');
  if (location.pathname === '/' && !localStorage.getItem('seenTour')) {
    localStorage.setItem('seenTour', '1');
    history.pushState({}, '', '/welcome');
    render();
  }
}, 600));
