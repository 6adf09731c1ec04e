package library

// Vendor lists, written once: the runtime, the compliance rules and the verification scan read
// them from here.

// GoogleTagHosts returns the hosts (each with its subdomains) Google's tags load from: the
// tags that read Google Consent Mode. The runtime leaves them to Consent Mode when a banner
// excludes the vendor from blocking; the verification scan times their first request against
// Consent Mode's default command.
func GoogleTagHosts() []string {
	return []string{"googletagmanager.com", "google-analytics.com", "analytics.google.com",
		"googleadservices.com", "doubleclick.net", "googlesyndication.com"}
}

// ConsentModeServices returns the slugs of the catalog's services that read Google Consent
// Mode: their tags adjust to the consent state only when its default command ran before them.
func ConsentModeServices() []string {
	return []string{"google-analytics", "google-ads", "google-ad-manager", "google-adsense",
		"google-floodlight", "google-tag-manager"}
}
