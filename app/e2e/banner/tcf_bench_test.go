package banner_test

import (
	"slices"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
)

// tcfBenchProbe records the frame that paints the TCF first layer.
const tcfBenchProbe = `
window.__tcfProbe = {visible: 0};
new MutationObserver(function (recs, mo) {
  var h = document.querySelector('consentd-tcf');
  if (!h || !h.shadowRoot || !h.shadowRoot.querySelector('.l1')) return;
  mo.disconnect();
  requestAnimationFrame(function () { window.__tcfProbe.visible = performance.now(); });
}).observe(document, {childList: true, subtree: true});
`

// BenchmarkBrowserTCF loads the TCF test page (five vendors, two Google providers) as a
// first-time visitor from Germany and reports the medians of:
//   - ms-DCL-to-first-layer: from DOMContentLoaded to the frame that paints the TCF first layer
//     (the stub loads the module and the module fetches the site's TCF configuration, both from
//     consentd's origin, so this includes two requests on loopback);
//   - ms-decision: the main-thread time of "accept all", from the click to the end of its
//     synchronous work (the TC and AC strings, euconsent-v2, consentd's decision and Consent
//     Mode, the listeners; the record's POST is sent asynchronously);
//   - KB-module-gz: the TCF module's size as served gzipped.
//
// Run: go test ./app/e2e/banner/ -run '^$' -bench BrowserTCF -benchtime 10x
func BenchmarkBrowserTCF(b *testing.B) {
	e := newTCFEnv(b)
	url := tcfPage(e, "tcf-bench")
	var dcl, decision []float64
	for b.Loop() {
		ctx := tab(b, tcfBenchProbe)
		navigate(b, ctx, url)
		waitFor(b, ctx, `window.__tcfProbe.visible > 0`)
		var m struct{ Visible, DCL, Decision float64 }
		eval(b, ctx, `({visible: window.__tcfProbe.visible,
  dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventStart,
  decision: (function () { var s = performance.now(); window.__tcfUI('.l1 [data-action=accept]').click(); return performance.now() - s; })()})`, &m)
		dcl = append(dcl, m.Visible-m.DCL)
		decision = append(decision, m.Decision)
	}
	med := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(dcl), "ms-DCL-to-first-layer")
	b.ReportMetric(med(decision), "ms-decision")
	b.ReportMetric(float64(len(bannerjs.TCFScriptGzip()))/1024, "KB-module-gz")
	b.ReportMetric(0, "ns/op")
	b.Logf("TCF, %d runs, median (minimum): first layer painted %.1f (%.1f) ms after DOMContentLoaded; accept all takes %.2f (%.2f) ms of main thread; tcf.js %d bytes gzipped",
		len(dcl), med(dcl), slices.Min(dcl), med(decision), slices.Min(decision), len(bannerjs.TCFScriptGzip()))
}
