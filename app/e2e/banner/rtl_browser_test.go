package banner_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/i18n"
)

// rtlLayout is what the RTL test measures of a shadow root's dialog (sel): its dir and computed
// direction, where its close button and its first and last action sit, and, for a checked switch
// inside, the knob's physical offsets.
const rtlLayout = `(function (root, sel) {
  var box = root.querySelector(sel), r = box.getBoundingClientRect();
  var x = box.querySelector('.x').getBoundingClientRect();
  var acts = box.querySelectorAll('.ac button');
  var first = acts[0].getBoundingClientRect(), last = acts[acts.length - 1].getBoundingClientRect();
  var sw = box.querySelector('input:checked + .sw'), knob = sw ? getComputedStyle(sw, '::after') : null;
  return {dir: box.getAttribute('dir'), direction: getComputedStyle(box).direction, textAlign: getComputedStyle(box.querySelector('p')).textAlign,
    left: r.left, right: innerWidth - r.right, closeLeft: x.left - r.left, closeRight: r.right - x.right,
    firstLeft: first.left, lastLeft: last.left, heading: box.querySelector('h2').textContent,
    knobLeft: knob ? knob.left : '', knobRight: knob ? knob.right : ''};
})`

type rtlBox struct {
	Dir, Direction, TextAlign string
	Left, Right               float64
	CloseLeft, CloseRight     float64
	FirstLeft, LastLeft       float64
	Heading                   string
	KnobLeft, KnobRight       string
}

// TestBrowserRightToLeft is #45's test of right to left: an Arabic visitor on an Arabic page
// gets the banner in Arabic, laid out mirrored (dir="rtl", computed direction rtl, text aligned
// to the right, the close button at the left, the actions running from the right, the
// bottom_right corner at the bottom left), and its preferences mirrored too (the switches' knob
// of a checked category at the left); axe-core finds nothing on either; screenshots of both. An
// English visitor of the same site gets them left to right, as before.
func TestBrowserRightToLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	// The environment's English overrides would win over every language: drop them (an empty
	// text removes its override).
	e.patchBanner(t, map[string]any{"textOverrides": map[string]any{"headline": "", "body": "", "acceptLabel": "",
		"rejectLabel": "", "preferencesLabel": "", "privacyLabel": ""}, "template": "floating", "position": "bottom_right"})
	ar, _ := i18n.Texts("ar")
	for _, c := range []struct {
		lang string
		rtl  bool
	}{{"ar", true}, {"en", false}} {
		t.Run(c.lang, func(t *testing.T) {
			ctx := tab(t, `Object.defineProperty(Navigator.prototype, 'languages', {get: function () { return ['`+c.lang+`']; }, configurable: true});
Object.defineProperty(Navigator.prototype, 'language', {get: function () { return '`+c.lang+`'; }, configurable: true});`)
			err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": c.lang}})
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
			navigate(t, ctx, e.page("rtl-"+c.lang, c.lang, `<meta name="viewport" content="width=device-width, initial-scale=1">`, ""))
			waitFor(t, ctx, `!!window.__cd('[data-template]')`)
			ui := `document.querySelector('consentd-ui').shadowRoot`
			var b rtlBox
			eval(t, ctx, rtlLayout+`(`+ui+`, '[data-template]')`, &b)
			t.Logf("banner: %+v", b)
			if c.rtl {
				if b.Dir != "rtl" || b.Direction != "rtl" || b.TextAlign != "start" {
					t.Errorf("Arabic banner: dir %q, direction %q, text-align %q; want rtl, rtl, start", b.Dir, b.Direction, b.TextAlign)
				}
				if b.Heading != ar["headline"] {
					t.Errorf("Arabic banner's heading %q, want %q", b.Heading, ar["headline"])
				}
				if !(b.CloseLeft < b.CloseRight) || !(b.FirstLeft > b.LastLeft) || !(b.Left < b.Right) || b.Left != 16 {
					t.Errorf("Arabic banner not mirrored: close button %v from the left, %v from the right; first action at %v, last at %v; banner %v from the left, %v from the right (want the bottom left corner, 16)",
						b.CloseLeft, b.CloseRight, b.FirstLeft, b.LastLeft, b.Left, b.Right)
				}
			} else {
				if b.Dir != "" || b.Direction != "ltr" || !(b.CloseRight < b.CloseLeft) || !(b.FirstLeft < b.LastLeft) || b.Right != 16 {
					t.Errorf("English banner not left to right: %+v", b)
				}
			}
			axeCheck(t, ctx, "the banner ("+c.lang+")", "consentd-ui")
			screenshot(t, ctx, "rtl-banner-"+c.lang)

			eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
			waitFor(t, ctx, `!!window.__cd('[data-preferences] [data-category=statistics]')`)
			// Switch statistics on: its knob slides to the end of the line.
			eval(t, ctx, `window.__cd('[data-preferences] [data-category=statistics]').click()`, nil)
			waitFor(t, ctx, `!!window.__cd('[data-preferences] input:checked + .sw')`)
			var p rtlBox
			eval(t, ctx, rtlLayout+`(`+ui+`, '[data-preferences]')`, &p)
			t.Logf("preferences: %+v", p)
			if c.rtl {
				if p.Dir != "rtl" || p.Direction != "rtl" || p.TextAlign != "start" || p.Heading != ar["preferencesTitle"] {
					t.Errorf("Arabic preferences: %+v", p)
				}
				if !(p.CloseLeft < p.CloseRight) || !(p.FirstLeft > p.LastLeft) || p.KnobRight != "21px" {
					t.Errorf("Arabic preferences not mirrored: close %v/%v, actions %v/%v, checked knob left %s right %s (want right 21px)",
						p.CloseLeft, p.CloseRight, p.FirstLeft, p.LastLeft, p.KnobLeft, p.KnobRight)
				}
			} else if p.Direction != "ltr" || p.KnobLeft != "21px" || !(p.CloseRight < p.CloseLeft) {
				t.Errorf("English preferences not left to right: %+v", p)
			}
			axeCheck(t, ctx, "the preferences ("+c.lang+")", "consentd-ui")
			screenshot(t, ctx, "rtl-preferences-"+c.lang)
		})
	}
}

// TestBrowserTCFRightToLeft: a Hebrew visitor from Germany on a TCF site gets both TCF layers in
// Hebrew (consentd's own texts; the purposes in the IAB's wording), laid out right to left:
// dir="rtl" and computed direction rtl on each layer, the first layer's actions running from
// the right, a checked switch's knob at the left. axe-core finds nothing on either; screenshots.
func TestBrowserTCFRightToLeft(t *testing.T) {
	t.Parallel()
	e := newTCFEnv(t)
	he := banner.TCFTexts("he")
	ctx := tab(t, `Object.defineProperty(Navigator.prototype, 'languages', {get: function () { return ['he']; }, configurable: true});
Object.defineProperty(Navigator.prototype, 'language', {get: function () { return 'he'; }, configurable: true});`)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "he"}})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, ctx, e.page("tcf-he", "he", `<meta name="viewport" content="width=device-width, initial-scale=1">`+tcfProbe, ""))
	waitFor(t, ctx, `window.__tcfUI('.l1')`)
	var l1 struct {
		Dir, Direction, Heading string
		FirstLeft, LastLeft     float64
	}
	eval(t, ctx, `(function () {
  var l = window.__tcfUI('.l1'), acts = l.querySelectorAll('.ac button, .ac .b');
  return {dir: l.getAttribute('dir'), direction: getComputedStyle(l).direction, heading: l.querySelector('h2').textContent,
    firstLeft: acts[0].getBoundingClientRect().left, lastLeft: acts[acts.length - 1].getBoundingClientRect().left};
})()`, &l1)
	t.Logf("first layer: %+v", l1)
	if l1.Dir != "rtl" || l1.Direction != "rtl" || l1.Heading != he["tcfHeadline"] || !(l1.FirstLeft > l1.LastLeft) {
		t.Errorf("Hebrew TCF first layer not in Hebrew right to left: %+v (want heading %q)", l1, he["tcfHeadline"])
	}
	axeCheck(t, ctx, "the TCF first layer (he)", "consentd-tcf")
	screenshot(t, ctx, "rtl-tcf-first-layer-he")
	eval(t, ctx, `window.__tcfUI('.l1 [data-action=manage]').click()`, nil)
	waitFor(t, ctx, `window.__tcfUI('dialog.l2[open]') && !window.__tcfUI('.l1')`)
	eval(t, ctx, `window.__tcfUI('dialog.l2 input[data-key]').click()`, nil)
	// The knob slides (a .15 s transition): measure where it comes to rest.
	waitFor(t, ctx, `(function () { var sw = window.__tcfUI('dialog.l2 input:checked + .sw'); return !!sw && getComputedStyle(sw, '::after').right === '21px'; })()`)
	var l2 struct{ Dir, Direction, KnobRight string }
	eval(t, ctx, `(function () {
  var l = window.__tcfUI('dialog.l2'), sw = l.querySelector('input:checked + .sw');
  return {dir: l.getAttribute('dir'), direction: getComputedStyle(l).direction, knobRight: sw ? getComputedStyle(sw, '::after').right : ''};
})()`, &l2)
	t.Logf("second layer: %+v", l2)
	if l2.Dir != "rtl" || l2.Direction != "rtl" || l2.KnobRight != "21px" {
		t.Errorf("Hebrew TCF second layer not right to left: %+v (want a checked knob 21px from the right)", l2)
	}
	axeCheck(t, ctx, "the TCF second layer (he)", "consentd-tcf")
	screenshot(t, ctx, "rtl-tcf-second-layer-he")
}

// TestBrowserPageLanguageVariant: the loader's configuration carries no list of languages; a
// page whose lang is zh-TW, read with an English browser, asks the server, which matches it to
// Traditional Chinese (#45). A page in a language the site does not speak (Thai) shows the
// browser's language.
func TestBrowserPageLanguageVariant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.patchBanner(t, map[string]any{"textOverrides": map[string]any{"headline": "", "body": "", "acceptLabel": "",
		"rejectLabel": "", "preferencesLabel": "", "privacyLabel": ""}})
	zh, _ := i18n.Texts("zh-Hant")
	en, _ := i18n.Texts("en")
	for _, c := range []struct{ page, want string }{{"zh-TW", zh["headline"]}, {"th", en["headline"]}} {
		ctx := tab(t)
		navigate(t, ctx, e.page("variant-"+c.page, c.page, "", ""))
		waitFor(t, ctx, `!!window.__cd('[data-template] h2')`)
		var heading string
		eval(t, ctx, `window.__cd('[data-template] h2').textContent`, &heading)
		if heading != c.want {
			t.Errorf("page lang %s: heading %q, want %q", c.page, heading, c.want)
		}
	}
}
