package console

import "context"

// features reports what the sign-in page offers in this deployment.
func (h *handler) features(ctx context.Context) features {
	var f features
	if h.cfg.SSO != nil {
		ok, err := h.cfg.SSO.Offered(ctx)
		if err != nil {
			h.log.ErrorContext(ctx, "could not tell whether single sign-on is configured", "err", err)
		}
		f.SSO = ok
	}
	return f
}
