// Package response is how consentd's two HTTP adapters, the API (adapters/httpapi) and the web
// console (adapters/console), answer alike: the HTTP status of an error, the CSV export of
// consent records, and the setup snippets. It is a leaf under adapters/internal (core and the
// standard library only) that both import, so that neither adapter imports the other; the
// request side (who the client is, whether it came over HTTPS) is adapters/internal/trustedproxy.
// Model: miniflux's internal/http/{request,response}, shared by its api and ui packages.
package response
