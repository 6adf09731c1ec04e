package core

import "github.com/consentd/consentd/library"

// Catalog is the library of known services (implemented by *library.Catalog).
type Catalog interface {
	// Services lists every service, sorted by slug.
	Services() []*library.Service
	// Service finds a service by slug.
	Service(slug string) (*library.Service, bool)
	// Search lists the services matching q, best first.
	Search(q string) []*library.Service
}
