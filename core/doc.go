// Package core is consentd's domain: the entities (organizations, API keys, sites, banners,
// categories, services, scans, consent records), the rules that hold between them, the use
// cases that enforce those rules (one small service per concept, built by New), and the ports the use cases need (stores, the scan
// queue, the crawler, the service catalog). It imports no adapter and no framework.
//
// Errors returned by core and by every port carry a Code (see errors.go) that the HTTP adapter
// maps to a status in one place.
package core
