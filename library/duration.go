package library

import (
	"strconv"
	"time"
)

// DescribeDuration puts an observed cookie lifetime in the words entries use for their
// declared ones (Cookie.Duration), so that observed and declared durations read alike: "session" for none, otherwise the largest whole unit ("2 years", "13
// months", "1 day", "30 minutes").
func DescribeDuration(d time.Duration) string {
	if d <= 0 {
		return "session"
	}
	day := 24 * time.Hour
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{365 * day, "year"}, {30 * day, "month"}, {day, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}} {
		if d >= u.d {
			n := int64((d + u.d/2) / u.d) // nearest whole unit
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatInt(n, 10) + " " + u.name + "s"
		}
	}
	n := int64(d / time.Second)
	if n == 1 {
		return "1 second"
	}
	return strconv.FormatInt(n, 10) + " seconds"
}
