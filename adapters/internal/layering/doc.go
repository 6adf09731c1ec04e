// Package layering keeps the adapters siblings: its test fails when a package under
// adapters/<X> imports one under adapters/<Y> for another adapter Y. What two adapters share
// lives in a leaf under adapters/internal (response, trustedproxy), which both import; an
// adapter's own sub-packages (httpapi/bannerjs, tcstring/internal/...) are its own.
package layering
