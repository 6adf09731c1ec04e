package httpapi

// WithoutBodySchema returns cfg for a server that skips huma's validation of request bodies:
// the schema-agreement test sends it what the document refuses, to see that core's validators
// refuse it too.
func WithoutBodySchema(cfg Config) Config {
	cfg.noBodySchema = true
	return cfg
}
