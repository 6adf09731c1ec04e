package netguard

import (
	"net"
	"testing"
)

func TestParseConnectTo(t *testing.T) {
	t.Parallel()
	ok := map[string]ConnectTo{
		"www.googletagmanager.com:443:127.0.0.1:8443": {"www.googletagmanager.com", "443", "127.0.0.1", "8443"},
		"WWW.Example.com:80:localhost:":               {"www.example.com", "80", "localhost", ""},
		"::127.0.0.1:8443":                            {"", "", "127.0.0.1", "8443"},
		":443:[::1]:8443":                             {"", "443", "::1", "8443"},
		"[2001:db8::1]:443:[::1]:":                    {"2001:db8::1", "443", "::1", ""},
		":::":                                         {},
	}
	for s, want := range ok {
		got, err := ParseConnectTo(s)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", s, got, err, want)
		}
		if again, err := ParseConnectTo(got.String()); err != nil || again != got {
			t.Errorf("%q: String() %q reads back as %+v, %v", s, got.String(), again, err)
		}
	}
	bad := map[string]string{
		"":                         `connect-to rule "" is not HOST:PORT:CONNECT_HOST:CONNECT_PORT`,
		"a.example:443:127.0.0.1":  `connect-to rule "a.example:443:127.0.0.1" is not HOST:PORT:CONNECT_HOST:CONNECT_PORT`,
		"a.example:https:b:443":    `connect-to rule "a.example:https:b:443": port "https" is not a number from 1 to 65535`,
		"a.example:443:b:99999":    `connect-to rule "a.example:443:b:99999": port "99999" is not a number from 1 to 65535`,
		"a.example:443:b:1:2":      `connect-to rule "a.example:443:b:1:2": port "1:2" is not a number from 1 to 65535`,
		"[::1:443:b:1":             `connect-to rule "[::1:443:b:1": an IPv6 address opened with [ is not closed with ]`,
		"[::1]x:443:b:1":           `connect-to rule "[::1]x:443:b:1" is not HOST:PORT:CONNECT_HOST:CONNECT_PORT`,
		"a.example:443:b/c:1":      `connect-to rule "a.example:443:b/c:1": "b/c" is not a host name or address`,
		"a.example:443:[::1]:[80]": `connect-to rule "a.example:443:[::1]:[80]" is not HOST:PORT:CONNECT_HOST:CONNECT_PORT`,
	}
	for s, want := range bad {
		if _, err := ParseConnectTo(s); err == nil || err.Error() != want {
			t.Errorf("%q: err %v, want %q", s, err, want)
		}
	}
}

func TestConnectToMatching(t *testing.T) {
	t.Parallel()
	rules := []ConnectTo{
		{Host: "a.example", Port: "443", ConnectHost: "127.0.0.1", ConnectPort: "8443"},
		{Host: "a.example", ConnectHost: "10.0.0.1"},
		{Port: "8080", ConnectPort: "9090"},
	}
	cases := map[string]string{
		"a.example:443":  "127.0.0.1:8443",
		"A.Example.:443": "127.0.0.1:8443",
		"a.example:80":   "10.0.0.1:80",
		"b.example:8080": "b.example:9090",
		"b.example:443":  "b.example:443",
	}
	for in, want := range cases {
		h, p, _ := net.SplitHostPort(in)
		if h, p = route(rules, h, p); net.JoinHostPort(h, p) != want {
			t.Errorf("%s → %s:%s, want %s", in, h, p, want)
		}
	}
}
