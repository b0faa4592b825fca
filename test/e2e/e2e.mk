# End-to-end suite targets. Included by the top-level Makefile
# (`include test/e2e/e2e.mk`) or run alone: `make -f test/e2e/e2e.mk e2e`.
#
#   make e2e-binaries  build etcd, kube-apiserver, kube-scheduler,
#                      kube-controller-manager, kwok and metrics-server once
#                      per version into $(E2E_BIN_DIR) (cold ~10-18 min on 2
#                      cores, then cached)
#   make e2e-prometheus  apt-get install Debian's prometheus when it is absent
#   make e2e           the suite against a real control plane (~1 min warm)
#   E2E_SKIP=1         skips every e2e target, for fast local loops only (never in CI)
#   E2E_RUN=REGEX      runs only the matching tests
#   E2E_KEEP=1         keeps the work directory (certificates, logs) after a pass
#   E2E_DESCHEDULER=BIN tests a prebuilt binary instead of building ./cmd/descheduler

# Keep the including Makefile's default goal (this file defines no default).
E2E_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

E2E_GO      ?= go
E2E_ROOT    := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
E2E_BIN_DIR ?= $(HOME)/.cache/usage-descheduler/k8s-v1.34.4
E2E_TIMEOUT ?= 20m
E2E_RUN     ?= .

export E2E_BIN_DIR

.PHONY: e2e e2e-binaries e2e-prometheus e2e-vet

ifeq ($(E2E_SKIP),1)
e2e e2e-binaries e2e-prometheus e2e-vet:
	@echo "E2E_SKIP=1: skipping $@"
else
e2e-binaries:
	@start=$$(date +%s); $(E2E_ROOT)/hack/e2e-binaries.sh >/dev/null && \
		echo "e2e-binaries: ready in $$(( $$(date +%s) - start )) s ($(E2E_BIN_DIR))"

## e2e-prometheus: the usage cases scrape a test exporter with a real Prometheus.
e2e-prometheus:
	@[ -n "$$E2E_PROMETHEUS" ] || command -v prometheus >/dev/null || { \
		echo "e2e-prometheus: prometheus not found, installing Debian's package"; \
		command -v apt-get >/dev/null || { echo "e2e-prometheus: no apt-get; install prometheus (2.x) on PATH or set E2E_PROMETHEUS"; exit 1; }; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null; }
	@$${E2E_PROMETHEUS:-prometheus} --version 2>&1 | head -1

## e2e-vet: gofmt and go vet of the e2e modules (not covered by the root module's ./...).
e2e-vet:
	@cd $(E2E_ROOT)/test/e2e && out=$$(gofmt -l . ) && if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	cd $(E2E_ROOT)/test/e2e && $(E2E_GO) vet ./...

e2e: e2e-binaries e2e-prometheus e2e-vet
	@start=$$(date +%s); cd $(E2E_ROOT)/test/e2e && \
		$(E2E_GO) test -count=1 -timeout $(E2E_TIMEOUT) -run '$(E2E_RUN)' -v ./... ; rc=$$?; \
		echo "e2e: suite took $$(( $$(date +%s) - start )) s (exit $$rc)"; exit $$rc
endif

.DEFAULT_GOAL := $(E2E_SAVED_DEFAULT_GOAL)
