module github.com/LiveRamp/iabconsent

go 1.21

require (
	github.com/pkg/errors v0.9.1
	github.com/rupertchen/go-bits v0.2.0
)
