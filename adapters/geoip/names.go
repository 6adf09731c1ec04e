package geoip

// subdivisionNames are the ISO 3166-2 codes (the part after the country) of the subdivisions
// whose rules differ by law, the US states and district and the Canadian provinces and
// territories, by their English name: DB-IP's City databases name a record's subdivisions
// without their codes.
var subdivisionNames = map[string]map[string]string{
	"US": {
		"Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR", "California": "CA",
		"Colorado": "CO", "Connecticut": "CT", "Delaware": "DE", "District of Columbia": "DC",
		"Florida": "FL", "Georgia": "GA", "Hawaii": "HI", "Idaho": "ID", "Illinois": "IL",
		"Indiana": "IN", "Iowa": "IA", "Kansas": "KS", "Kentucky": "KY", "Louisiana": "LA",
		"Maine": "ME", "Maryland": "MD", "Massachusetts": "MA", "Michigan": "MI", "Minnesota": "MN",
		"Mississippi": "MS", "Missouri": "MO", "Montana": "MT", "Nebraska": "NE", "Nevada": "NV",
		"New Hampshire": "NH", "New Jersey": "NJ", "New Mexico": "NM", "New York": "NY",
		"North Carolina": "NC", "North Dakota": "ND", "Ohio": "OH", "Oklahoma": "OK", "Oregon": "OR",
		"Pennsylvania": "PA", "Rhode Island": "RI", "South Carolina": "SC", "South Dakota": "SD",
		"Tennessee": "TN", "Texas": "TX", "Utah": "UT", "Vermont": "VT", "Virginia": "VA",
		"Washington": "WA", "West Virginia": "WV", "Wisconsin": "WI", "Wyoming": "WY",
	},
	"CA": {
		"Alberta": "AB", "British Columbia": "BC", "Manitoba": "MB", "New Brunswick": "NB",
		"Newfoundland and Labrador": "NL", "Nova Scotia": "NS", "Northwest Territories": "NT",
		"Nunavut": "NU", "Ontario": "ON", "Prince Edward Island": "PE", "Quebec": "QC",
		"Québec": "QC", "Saskatchewan": "SK", "Yukon": "YT",
	},
}
