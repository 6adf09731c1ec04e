package console

// features reports the optional pages of this build.
func (h *handler) features() features {
	return features{Keys: h.m.KeyUseCases != nil, Proof: h.m.ProofUseCases != nil, Audit: h.m.AuditUseCases != nil, SSO: h.ssoOrgs()}
}
