GO ?= go
BIN := bin/descheduler
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/usage-descheduler/descheduler/pkg/app.version=$(VERSION)

.PHONY: build test unit vet fuzz run clean

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/descheduler

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

test: vet unit

clean:
	rm -rf bin
