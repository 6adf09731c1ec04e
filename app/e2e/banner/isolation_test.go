package banner_test

import "testing"

// TestBrowserBannerIgnoresSiteCSS: the page's rules reach the banner only through its host
// element, which banner.css resets (:host, !important): a site whose styles hide, move, scale,
// blur, fade or restyle the host (with !important, as some themes do for every element) and
// every element's text leaves the banner whole, visible, in its corner and in its own type.
func TestBrowserBannerIgnoresSiteCSS(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.site.file("hostile.css", `
consentd-ui { visibility: hidden !important; opacity: .1 !important; transform: scale(.5) !important;
  filter: blur(4px) !important; position: relative !important; z-index: -5 !important; contain: strict !important;
  letter-spacing: 12px !important; text-transform: uppercase !important; direction: rtl !important;
  white-space: pre !important; cursor: wait !important; pointer-events: none !important; -webkit-text-fill-color: red !important; }
* { letter-spacing: 3px; text-indent: 40px; word-spacing: 20px; text-shadow: 0 0 2px red; }
`)
	ctx := tab(t)
	navigate(t, ctx, e.page("hostile-css", "en", `<link rel="stylesheet" href="/static/hostile.css">`, ""))
	waitFor(t, ctx, bannerShown)
	var got struct {
		Visibility, Opacity, Transform, Filter, LetterSpacing, TextTransform, TextIndent, Direction, WhiteSpace, PointerEvents, Fill string
		Right, Bottom, W, VW, VH                                                                                                     float64
		Hit                                                                                                                          bool
	}
	eval(t, ctx, `(function () {
  var host = document.querySelector('consentd-ui'), b = window.__cd('[data-template]'), p = b.querySelector('p');
  var hs = getComputedStyle(host), ps = getComputedStyle(p), r = b.getBoundingClientRect();
  var btn = b.querySelector('[data-action=accept]').getBoundingClientRect();
  var hit = host.shadowRoot.elementFromPoint(btn.left + btn.width / 2, btn.top + btn.height / 2);
  return {visibility: ps.visibility, opacity: hs.opacity, transform: hs.transform, filter: hs.filter,
    letterSpacing: ps.letterSpacing, textTransform: ps.textTransform, textIndent: ps.textIndent, direction: ps.direction,
    whiteSpace: ps.whiteSpace, pointerEvents: ps.pointerEvents, fill: ps.webkitTextFillColor,
    right: innerWidth - r.right, bottom: innerHeight - r.bottom, w: r.width, vw: innerWidth, vh: innerHeight,
    hit: !!hit && hit.getAttribute('data-action') === 'accept'};
})()`, &got)
	want := map[string][2]string{
		"visibility": {got.Visibility, "visible"}, "opacity": {got.Opacity, "1"}, "transform": {got.Transform, "none"},
		"filter": {got.Filter, "none"}, "letter-spacing": {got.LetterSpacing, "normal"}, "text-transform": {got.TextTransform, "none"},
		"text-indent": {got.TextIndent, "0px"}, "direction": {got.Direction, "ltr"}, "white-space": {got.WhiteSpace, "normal"},
		"pointer-events": {got.PointerEvents, "auto"},
	}
	for k, v := range want {
		if v[0] != v[1] {
			t.Errorf("the site's CSS reached the banner: %s is %q, want %q", k, v[0], v[1])
		}
	}
	if got.Fill == "rgb(255, 0, 0)" {
		t.Errorf("the site's -webkit-text-fill-color reached the banner's text")
	}
	// floating, bottom_right: 16px from the viewport's corner, at its own width.
	if got.Right < 15 || got.Right > 17 || got.Bottom < 15 || got.Bottom > 17 || got.W < 300 {
		t.Errorf("the banner is not in its corner at its size: right %.1f bottom %.1f width %.1f (viewport %.0fx%.0f)", got.Right, got.Bottom, got.W, got.VW, got.VH)
	}
	if !got.Hit {
		t.Error("Accept all is not what a click at its place reaches")
	}
	noViolations(t, ctx)
	screenshot(t, ctx, "banner-hostile-site-css")
}
