// Package analytics counts how visitors meet a site's banner: how often it is shown, how many
// decide and how (from the runtime's interaction events and from the consent records), opened
// preferences, visitors who left without deciding and the time they took, per site, UTC hour,
// country, regional rule, device class, language, banner version and experiment variant.
//
// Nothing is stored per event or per visitor: an Aggregator adds events to counters in memory
// and flushes them every second to the Store as additive upserts, so several processes on one
// database add up. A crash loses at most the counts of the last second, which analytics can
// afford and consent records cannot (they keep their own path, core/consent). docs/analytics.md
// describes the events, the API and why the events need no consent.
package analytics
