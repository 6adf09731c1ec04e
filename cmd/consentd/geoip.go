package main

import (
	"fmt"
	"io"
	"net/netip"
	"text/tabwriter"
	"time"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core/banner"
)

// geoipCmd says which geolocation database serve would use (CONSENTD_GEOIP_DB or the embedded
// one), when it was built and under which licence, and where each address given is.
func geoipCmd(args []string, w io.Writer) error {
	var path string
	fs := newFlags("geoip")
	bind(fs, "geoip-db", &path)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	addrs := make([]netip.Addr, len(pos))
	for i, p := range pos {
		if addrs[i], err = netip.ParseAddr(p); err != nil {
			return fmt.Errorf("%q is not an IP address", p)
		}
	}
	geo, err := app.OpenGeolocator(path)
	if err != nil {
		return err
	}
	defer geo.Close()
	d := geo.Database()
	fmt.Fprintf(w, "database:  %s\n", d.Name)
	fmt.Fprintf(w, "source:    %s\n", d.Source)
	if d.Version != "" {
		fmt.Fprintf(w, "version:   %s\n", d.Version)
	}
	built := "not recorded"
	if !d.Built.IsZero() {
		built = d.Built.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "built:     %s\n", built)
	fmt.Fprintf(w, "licence:   %s\n", d.Licence)
	regions := "no (country only)"
	if d.Subdivisions {
		regions = "yes (country and subdivision)"
	}
	fmt.Fprintf(w, "regions:   %s\n", regions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, a := range addrs {
		loc, err := geo.Locate(a)
		if err != nil {
			return err
		}
		place := loc.Country
		switch {
		case loc.Region != "":
			place = loc.Region
		case place == "":
			place = "unknown"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", pos[i], place, banner.VisitorRuleAt(loc).Jurisdiction)
	}
	return tw.Flush()
}
