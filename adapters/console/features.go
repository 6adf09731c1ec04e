package console

// features reports what the sign-in page offers in this deployment.
func (h *handler) features() features {
	return features{SSO: h.ssoOrgs()}
}
