package core

import "time"

// Clock is the use cases' clock; now is the time as stored (UTC, to the microsecond). Each
// service that reads the time embeds it.
type Clock func() time.Time

func (c Clock) Now() time.Time { return c().UTC().Truncate(time.Microsecond) }
