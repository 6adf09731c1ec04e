package netguard

import (
	"fmt"
	"strconv"
	"strings"
)

// ConnectTo is a connect-to rule, with curl's --connect-to meaning: a connection to Host:Port
// is made to ConnectHost:ConnectPort instead, while the request (Host header, TLS server name and
// certificate check) still names Host. An empty Host or Port matches any; an empty ConnectHost
// or ConnectPort keeps the original. The address check applies to the address actually dialled.
type ConnectTo struct {
	Host, Port               string
	ConnectHost, ConnectPort string
}

// String returns the rule as ParseConnectTo reads it.
func (r ConnectTo) String() string {
	return joinRuleHost(r.Host) + ":" + r.Port + ":" + joinRuleHost(r.ConnectHost) + ":" + r.ConnectPort
}

func joinRuleHost(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// ParseConnectTo reads a rule written HOST:PORT:CONNECT_HOST:CONNECT_PORT, as curl's
// --connect-to takes it; IPv6 addresses are written in brackets ("[::1]").
func ParseConnectTo(s string) (ConnectTo, error) {
	var fields []string
	rest := s
	for i := 0; i < 4; i++ {
		var f string
		if strings.HasPrefix(rest, "[") && i%2 == 0 {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return ConnectTo{}, fmt.Errorf("connect-to rule %q: an IPv6 address opened with [ is not closed with ]", s)
			}
			f, rest = rest[1:end], rest[end+1:]
			if i < 3 && !strings.HasPrefix(rest, ":") {
				return ConnectTo{}, fmt.Errorf("connect-to rule %q is not HOST:PORT:CONNECT_HOST:CONNECT_PORT", s)
			}
		} else if j := strings.IndexByte(rest, ':'); j >= 0 && i < 3 {
			f, rest = rest[:j], rest[j:]
		} else {
			f, rest = rest, ""
		}
		if i < 3 {
			if !strings.HasPrefix(rest, ":") {
				return ConnectTo{}, fmt.Errorf("connect-to rule %q is not HOST:PORT:CONNECT_HOST:CONNECT_PORT", s)
			}
			rest = rest[1:]
		}
		fields = append(fields, f)
	}
	if rest != "" || strings.ContainsAny(fields[3], "[]") {
		return ConnectTo{}, fmt.Errorf("connect-to rule %q is not HOST:PORT:CONNECT_HOST:CONNECT_PORT", s)
	}
	r := ConnectTo{Host: strings.ToLower(fields[0]), Port: fields[1], ConnectHost: strings.ToLower(fields[2]), ConnectPort: fields[3]}
	if err := r.Validate(); err != nil {
		return ConnectTo{}, err
	}
	return r, nil
}

// Validate reports a port that is not a number from 1 to 65535, or a host that is no host name
// or address.
func (r ConnectTo) Validate() error {
	for _, p := range []string{r.Port, r.ConnectPort} {
		if p == "" {
			continue
		}
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("connect-to rule %q: port %q is not a number from 1 to 65535", r.String(), p)
		}
	}
	for _, h := range []string{r.Host, r.ConnectHost} {
		if strings.ContainsAny(h, "/[] \t") {
			return fmt.Errorf("connect-to rule %q: %q is not a host name or address", r.String(), h)
		}
	}
	return nil
}

// route returns where a connection to host:port goes under the first matching rule.
func route(rules []ConnectTo, host, port string) (string, string) {
	for _, r := range rules {
		if (r.Host == "" || strings.EqualFold(r.Host, strings.TrimSuffix(host, "."))) && (r.Port == "" || r.Port == port) {
			if r.ConnectHost != "" {
				host = r.ConnectHost
			}
			if r.ConnectPort != "" {
				port = r.ConnectPort
			}
			break
		}
	}
	return host, port
}
