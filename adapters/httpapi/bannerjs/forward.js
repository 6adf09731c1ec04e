// Consent forwarding (docs/forwarding.md): the visitor's decision goes to the tools on the page
// that carry data on to servers, so that their server-side destinations respect it:
//   - Google Tag Manager: a dataLayer event, 'consentd_consent', for custom-event triggers;
//   - Segment (analytics.js / @segment/analytics-next): every event carries
//     context.consent.categoryPreferences (a source middleware, as Segment's consent wrapper,
//     @segment/analytics-consent-tools, stamps it), and a decision on the page is tracked as
//     'Segment Consent Preference Updated', the event that wrapper sends on a change;
//   - RudderStack (JS SDK v3): rudderanalytics.consent({consentManagement: {allowedConsentIds,
//     deniedConsentIds}}), for a site that loads it with consentManagement {enabled: true,
//     provider: 'custom'}.
// The consent IDs and category keys are the site's category slugs, each as the visitor's
// decision left it (the effective state: the necessary category is always granted). Nothing
// identifies the visitor: no visitor or record ID goes to the page's tools.
// Part of the lazily loaded module (more.js): the first view calls it on every decision and,
// once the page is parsed (the page's snippets have made their globals), for a stored one.

// EVENT is the dataLayer event's name.
export var EVENT = 'consentd_consent';
// SEGMENT_EVENT is the event Segment's consent wrapper tracks when the visitor's consent changes.
export var SEGMENT_EVENT = 'Segment Consent Preference Updated';

// forwarder returns forward(isDecision): it tells win's tools (win.dataLayer, win.analytics,
// win.rudderanalytics, whichever exist; the dataLayer is made when missing) of the decision
// consent() returns (the page API's getConsent), once per decision: a call with the decision
// already forwarded does nothing. isDecision is true for a decision taken on this page, false
// for a stored one applied on load.
export function forwarder(win, consent) {
  var last = null, stamped = [];
  return function forward(isDecision) {
    var c = consent();
    if (!c.decided) return;
    var key = JSON.stringify([c.categories, c.action, c.decidedAt]);
    if (key === last) return;
    last = key;
    var cats = c.categories, yes = [], no = [];
    for (var k in cats) (cats[k] ? yes : no).push(k);
    (win.dataLayer = win.dataLayer || []).push({
      event: EVENT,
      consentd: { categories: Object.assign({}, cats), granted: yes, denied: no, action: c.action, decidedAt: c.decidedAt,
        consentVersion: c.consentVersion, gpc: c.gpc, doNotSell: c.doNotSell, source: isDecision ? 'decision' : 'stored' }
    });
    var a = win.analytics;
    if (a && typeof a.track === 'function') {
      // The middleware reads the consent of the moment each event is made (a later decision
      // applies without another); one per instance (the snippet's queue replays it on load).
      if (stamped.indexOf(a) < 0 && typeof a.addSourceMiddleware === 'function') {
        stamped.push(a);
        a.addSourceMiddleware(function (m) {
          var ctx = m.payload.obj.context = m.payload.obj.context || {};
          ctx.consent = Object.assign({}, ctx.consent, { categoryPreferences: Object.assign({}, consent().categories) });
          m.next(m.payload);
        });
      }
      if (isDecision) a.track(SEGMENT_EVENT, undefined, { consent: { categoryPreferences: Object.assign({}, cats) } });
    }
    var r = win.rudderanalytics;
    if (r && typeof r.consent === 'function') r.consent({ consentManagement: { allowedConsentIds: yes, deniedConsentIds: no } });
  };
}
