package httpapi

// SetupSnippet returns the setup snippet's code and instructions for framework ("script",
// "react" or "next"; anything else is "script"), loading the runtime from src for the site
// projectKey, exactly as GET /sites/{id}/setup-snippet answers them. The console shows it.
func SetupSnippet(framework, src, projectKey string) (code, instructions string) {
	s := makeSnippet(framework, src, projectKey)
	return s.Code, s.Instructions
}
