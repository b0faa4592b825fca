# usage-descheduler — see README.md.
GO       ?= go
BIN      := bin/descheduler
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GIT_BRANCH ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null)
GIT_SHA1 ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X github.com/usage-descheduler/descheduler/pkg/app.version=$(VERSION) \
	-X github.com/usage-descheduler/descheduler/pkg/app.gitBranch=$(GIT_BRANCH) \
	-X github.com/usage-descheduler/descheduler/pkg/app.gitSha1=$(GIT_SHA1)
# The example is simulated at a fixed clock so its plan is reproducible.
EXAMPLE_NOW := 2026-01-01T12:00:00Z
# Counts, not durations: a time-based -fuzztime can fail spuriously at the
# deadline with "context deadline exceeded" (golang/go#75804).
FUZZ_API ?= 2000x
FUZZ_SNAPSHOT ?= 300x

.PHONY: build run example docs test vet unit fuzz bench bench-live clean report-check

build:
	@echo "go build -o $(BIN) ./cmd/descheduler (version $(VERSION))"
	@$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/descheduler

## run: simulate the example policy on the bundled 20-node example cluster,
## then the usage-based hotspot policy on the hotspot example, then one hour
## of that hotspot with the soft taint and without it (charts in
## bin/hotspot-report.html).
run: build
	@echo '$$ $(BIN) simulate --policy deploy/examples/policy.yaml \'
	@echo '    --snapshot deploy/examples/cluster.yaml --now $(EXAMPLE_NOW)'
	@$(BIN) simulate --policy deploy/examples/policy.yaml --snapshot deploy/examples/cluster.yaml --now $(EXAMPLE_NOW)
	@echo
	@echo "Hotspot relief by real usage (requests are balanced; hot-node-1 burns 88% cpu):"
	@echo '$$ $(BIN) simulate --policy deploy/examples/hotspot-metrics-server.yaml \'
	@echo '    --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW)'
	@$(BIN) simulate --policy deploy/examples/hotspot-metrics-server.yaml --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW)
	@echo
	@echo "The same hotspot over 12 cycles of 5m, with the soft taint (the scheduler model places the evicted pods elsewhere):"
	@echo '$$ $(BIN) simulate --policy deploy/examples/hotspot-metrics-server.yaml \'
	@echo '    --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW) \'
	@echo '    --cycles 12 --report bin/hotspot-report.html'
	@$(BIN) simulate --policy deploy/examples/hotspot-metrics-server.yaml --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW) \
		--cycles 12 --report bin/hotspot-report.html
	@echo
	@echo "...and without it (the replacements land back on hot-node-1, which never cools):"
	@echo '$$ $(BIN) simulate --policy deploy/examples/hotspot-no-soft-taint.yaml \'
	@echo '    --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW) --cycles 12'
	@$(BIN) simulate --policy deploy/examples/hotspot-no-soft-taint.yaml --snapshot deploy/examples/hotspot-cluster.yaml --now $(EXAMPLE_NOW) \
		--cycles 12

## example: regenerate deploy/examples/cluster.yaml and hotspot-cluster.yaml (deterministic).
example:
	$(GO) run ./hack/genexample deploy/examples

## docs: regenerate docs/reference (flags, metrics, policy fields) from the
## code; `make test` fails while a committed page differs (hack/docgen).
docs:
	$(GO) run ./hack/docgen -out docs/reference

## test: gofmt and vet, every unit test, a short fuzzing run of each parser, the
## report's rendering check in headless Chromium (report-check), the
## deployment checks (helm lint/template, kustomize, image binary), then the
## end-to-end suite against a real control plane (E2E_SKIP=1 skips it for
## fast local loops; CI never sets it).
test: vet unit fuzz
	$(MAKE) report-check
	$(MAKE) deploy-check
	$(MAKE) e2e

## report-check: render the simulate --cycles HTML report of generated 8, 200
## and 2,000-node clusters in headless Chromium and check the screenshots
## (pkg/simulator/report/chromium_test.go; ~2 min). Installs Debian's
## chromium with apt-get when it is absent; REPORT_CHECK_CHROMIUM names
## another browser binary.
report-check: build
	@[ -n "$$REPORT_CHECK_CHROMIUM" ] || command -v chromium >/dev/null || { \
		echo "report-check: chromium not found, installing Debian's package"; \
		command -v apt-get >/dev/null || { echo "report-check: no apt-get; install chromium on PATH or set REPORT_CHECK_CHROMIUM"; exit 1; }; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	REPORT_CHECK=1 REPORT_CHECK_BIN=$(abspath $(BIN)) $(GO) test -count=1 -timeout 20m \
		-run '^TestReportRendersInChromium$$' ./pkg/simulator/report

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l reports:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZ_API) ./pkg/api
	$(GO) test -run='^$$' -fuzz='^FuzzLoadFiles$$' -fuzztime=$(FUZZ_SNAPSHOT) ./pkg/snapshot

## bench: every Go benchmark (docs/benchmarks.md), then the peak memory of
## `simulate` on a generated 5,000-node, 150,000-pod cluster.
bench: build
	$(GO) test -run='^$$' -bench=. -benchmem -timeout 60m ./...
	$(BIN) generate --nodes 5000 --pods-per-node 30 -o bin/bench-5000.json
	$(GO) run ./hack/peakrss -- $(BIN) simulate --policy deploy/examples/all-strategies-usage.yaml \
		--snapshot bin/bench-5000.json --now $(EXAMPLE_NOW) -o json > /dev/null

## bench-live: the live benchmark (test/e2e/scale, docs/benchmarks.md "Live"):
## etcd + kube-apiserver from the e2e binaries, NODES nodes and
## NODES*PODS_PER_NODE realistic pods loaded through the API (and etcd),
## the descheduler run for CYCLES cycles with usage; prints one summary line.
## Takes minutes (5,000 nodes: about 10) and several GiB: not part of `make test`.
## Knobs: NODES PODS_PER_NODE CYCLES WORKERS LOAD=etcd|api WATCHLIST=0|1|both REQUESTS=template|pod
## E2E_DESCHEDULER=BIN[,BIN...] BENCH_KEEP=1 PROFILE=1 (CPU and heap profiles, docs/benchmarks.md).
NODES ?= 5000
PODS_PER_NODE ?= 30
bench-live: e2e-binaries
	cd test/e2e && NODES=$(NODES) PODS_PER_NODE=$(PODS_PER_NODE) $(GO) run ./scale

clean:
	rm -rf bin

include test/e2e/e2e.mk
include deploy/deploy.mk

# The e2e suite also dry-runs the Helm chart against the API server.
ifneq ($(E2E_SKIP),1)
e2e: helm
endif
