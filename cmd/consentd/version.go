package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at release builds (-ldflags "-X main.version=v1.2.3"); otherwise the module
// version from the build info is used.
var version = ""

// versionInfo is what 'consentd version' prints.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"goVersion"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: version, Commit: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	if v.Version == "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func versionCmd(args []string) error {
	if _, err := parse(newFlags("version"), args); err != nil {
		return err
	}
	v := buildVersion()
	fmt.Printf("consentd %s (commit %s", v.Version, v.Commit)
	if v.Modified {
		fmt.Print(", modified")
	}
	fmt.Printf(", %s)\n", v.GoVersion)
	return nil
}
