module github.com/rupertchen/go-bits

go 1.21

require github.com/pkg/errors v0.9.1
