# Deployment checks. Included by the top-level Makefile
# (`include deploy/deploy.mk`) or run alone: `make -f deploy/deploy.mk deploy-check`.
#
#   make helm           install the pinned helm (below) when absent
#   make image-context  build the image's binary exactly as the Dockerfile
#                       does, from only the files the Dockerfile copies
#   make deploy-check   helm lint + helm template for each kind, with every
#                       upstream chart key (ci/upstream-values.yaml) and
#                       with misspelled keys (must fail: values.schema.json),
#                       kubectl kustomize for each overlay (and the
#                       soft-taint and prometheus-token components),
#                       manifest invariants, the shipped policies
#                       validated by the binary, image-context
#
# Needs Go, kubectl (for its built-in kustomize) and network access to the Go
# module proxy the first time helm is installed.

# Keep the including Makefile's default goal (this file defines no default).
DEPLOY_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

DEPLOY_GO      ?= go
DEPLOY_ROOT    := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
DEPLOY_OUT     := $(DEPLOY_ROOT)/bin/deploy-check
DEPLOY_VERSION ?= $(shell git -C $(DEPLOY_ROOT) describe --tags --always --dirty 2>/dev/null || echo dev)
KUBECTL        ?= kubectl

# helm is installed from the Go module proxy (`go install` of helm's own
# module, so its go.mod pins its dependencies; nothing is added to ours).
# v3.22.0 is the latest helm v3 release that resolved on the proxy when
# this was written (`go list -m -versions helm.sh/helm/v3`). The first
# install compiles helm: a few minutes on 2 cores, then cached per version.
HELM_VERSION   ?= v3.22.0
HELM_DIR       ?= $(HOME)/.cache/usage-descheduler/helm-$(HELM_VERSION)
HELM           ?= $(HELM_DIR)/helm

DEPLOY_CHART    := $(DEPLOY_ROOT)/deploy/helm/usage-descheduler
DEPLOY_OVERLAYS := deployment cronjob job
DEPLOY_KINDS    := Deployment CronJob Job

# The Dockerfile's build command; image-context checks the Dockerfile
# contains it verbatim, then runs it.
DEPLOY_LDFLAGS_PREFIX := -s -w -X github.com/usage-descheduler/descheduler/pkg/app.version=
DEPLOY_IMAGE_BUILD    := CGO_ENABLED=0 go build -trimpath -ldflags="$(DEPLOY_LDFLAGS_PREFIX)
DEPLOY_IMAGE_SOURCES  := go.mod go.sum cmd collectors pkg strategies
DEPLOY_IMAGE_CONTEXT  := $(DEPLOY_ROOT)/bin/image-context

.PHONY: helm image-context deploy-check deploy-helm deploy-kustomize deploy-policies

helm:
	@if [ -x "$(HELM)" ] || command -v "$(HELM)" >/dev/null 2>&1; then :; else \
		echo "installing helm $(HELM_VERSION) into $(HELM_DIR)"; \
		mkdir -p "$(HELM_DIR)" && cd / && GOBIN="$(HELM_DIR)" $(DEPLOY_GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION); \
	fi
	@"$(HELM)" version --short

## image-context: stage exactly what the Dockerfile copies and run its go
## build there, then check the binary is static, trimmed and runs.
image-context:
	@grep -qF '$(DEPLOY_IMAGE_BUILD)$${VERSION}" -o /out/descheduler ./cmd/descheduler' $(DEPLOY_ROOT)/Dockerfile || \
		{ echo 'Dockerfile does not contain the build command $$(DEPLOY_IMAGE_BUILD) of deploy/deploy.mk'; exit 1; }
	@for src in $(DEPLOY_IMAGE_SOURCES); do \
		case "$$src" in go.mod|go.sum) pat="COPY go.mod go.sum ./";; *) pat="COPY $$src/ $$src/";; esac; \
		grep -qxF "$$pat" $(DEPLOY_ROOT)/Dockerfile || { echo "Dockerfile lacks: $$pat"; exit 1; }; \
	done
	@grep -qx 'USER 65532:65532' $(DEPLOY_ROOT)/Dockerfile || { echo "Dockerfile must run as USER 65532:65532"; exit 1; }
	@for dst in /bin/descheduler /descheduler; do \
		grep -qxF "COPY --from=build /out/descheduler $$dst" $(DEPLOY_ROOT)/Dockerfile || \
			{ echo "Dockerfile must install the binary at $$dst (upstream's path /bin/descheduler, ENTRYPOINT /descheduler)"; exit 1; }; \
	done
	@grep -qxF 'ENTRYPOINT ["/descheduler"]' $(DEPLOY_ROOT)/Dockerfile || { echo 'Dockerfile ENTRYPOINT must stay ["/descheduler"]'; exit 1; }
	rm -rf $(DEPLOY_IMAGE_CONTEXT) && mkdir -p $(DEPLOY_IMAGE_CONTEXT)/src
	cd $(DEPLOY_ROOT) && cp -R $(DEPLOY_IMAGE_SOURCES) $(DEPLOY_IMAGE_CONTEXT)/src/
	cd $(DEPLOY_IMAGE_CONTEXT)/src && GOFLAGS=-buildvcs=false $(DEPLOY_IMAGE_BUILD)$(DEPLOY_VERSION)" -o ../descheduler ./cmd/descheduler
	@$(DEPLOY_GO) version -m $(DEPLOY_IMAGE_CONTEXT)/descheduler | grep -q 'CGO_ENABLED=0' || { echo "binary is not static"; exit 1; }
	@$(DEPLOY_GO) version -m $(DEPLOY_IMAGE_CONTEXT)/descheduler | grep -q -- '-trimpath=true' || { echo "binary not built with -trimpath"; exit 1; }
	$(DEPLOY_IMAGE_CONTEXT)/descheduler version

## deploy-helm: lint the chart and render it for each kind (and with
## every optional part on).
deploy-helm: helm
	@mkdir -p $(DEPLOY_OUT)
	"$(HELM)" lint --strict $(DEPLOY_CHART)
	@set -e; for kind in $(DEPLOY_KINDS); do \
		echo "helm template kind=$$kind"; \
		"$(HELM)" template usage-descheduler $(DEPLOY_CHART) --namespace kube-system --set kind=$$kind \
			> $(DEPLOY_OUT)/helm-$$kind.yaml; \
	done
	"$(HELM)" template usage-descheduler $(DEPLOY_CHART) --namespace kube-system \
		-f $(DEPLOY_CHART)/ci/all-options-values.yaml > $(DEPLOY_OUT)/helm-all-options.yaml
	@set -e; for kind in Deployment CronJob; do \
		echo "helm template upstream-values.yaml kind=$$kind"; \
		"$(HELM)" template usage-descheduler $(DEPLOY_CHART) --namespace descheduler-release --set kind=$$kind \
			-f $(DEPLOY_CHART)/ci/upstream-values.yaml > $(DEPLOY_OUT)/helm-upstream-$$kind.yaml; \
		if grep -n 'namespace: descheduler-release' $(DEPLOY_OUT)/helm-upstream-$$kind.yaml; then \
			echo "namespaceOverride ignored in helm-upstream-$$kind.yaml"; exit 1; fi; \
	done
	@if "$(HELM)" template x $(DEPLOY_CHART) --set kind=DaemonSet >/dev/null 2>&1; then \
		echo "helm template accepted kind=DaemonSet"; exit 1; fi
	@# values.schema.json: misspelled keys (top level and nested) are rejected.
	@set -e; for bad in replica=2 leaderElection.enable=true serviceMonitor.insecureSkipVerfy=true \
		service.ipFamily=IPv4 serviceAccount.automountToken=false image.pullpolicy=Always; do \
		if "$(HELM)" template x $(DEPLOY_CHART) --set $$bad >/dev/null 2>$(DEPLOY_OUT)/schema-error.txt; then \
			echo "helm template accepted the misspelled value $$bad"; exit 1; fi; \
		grep -q 'additional properties' $(DEPLOY_OUT)/schema-error.txt || \
			{ echo "--set $$bad failed, but not by the schema:"; cat $(DEPLOY_OUT)/schema-error.txt; exit 1; }; \
	done; echo "values.schema.json rejects misspelled keys"
	@if "$(HELM)" template x $(DEPLOY_CHART) --set leaderElection.enabled=false >/dev/null 2>&1; then \
		echo "helm template accepted 2 replicas without leader election"; exit 1; fi
	@if "$(HELM)" template x $(DEPLOY_CHART) --set softTaint.untaintHook=post-install >/dev/null 2>&1; then \
		echo "helm template accepted softTaint.untaintHook=post-install"; exit 1; fi

## deploy-kustomize: build each overlay, the soft-taint component and the
## untaint Job.
deploy-kustomize:
	@mkdir -p $(DEPLOY_OUT)/soft-taint
	@set -e; for o in $(DEPLOY_OVERLAYS); do \
		echo "kubectl kustomize deploy/kustomize/$$o"; \
		$(KUBECTL) kustomize $(DEPLOY_ROOT)/deploy/kustomize/$$o > $(DEPLOY_OUT)/kustomize-$$o.yaml; \
	done
	@printf '%s\n' 'apiVersion: kustomize.config.k8s.io/v1beta1' 'kind: Kustomization' \
		'resources: [../../../deploy/kustomize/deployment]' \
		'components: [../../../deploy/kustomize/components/soft-taint]' > $(DEPLOY_OUT)/soft-taint/kustomization.yaml
	$(KUBECTL) kustomize $(DEPLOY_OUT)/soft-taint > $(DEPLOY_OUT)/kustomize-soft-taint.yaml
	$(KUBECTL) kustomize $(DEPLOY_ROOT)/deploy/kustomize/untaint > $(DEPLOY_OUT)/untaint-kustomize.yaml
	@mkdir -p $(DEPLOY_OUT)/prometheus-token
	@printf '%s\n' 'apiVersion: kustomize.config.k8s.io/v1beta1' 'kind: Kustomization' \
		'resources: [../../../deploy/kustomize/deployment]' \
		'components: [../../../deploy/kustomize/components/prometheus-token]' > $(DEPLOY_OUT)/prometheus-token/kustomization.yaml
	$(KUBECTL) kustomize $(DEPLOY_OUT)/prometheus-token > $(DEPLOY_OUT)/kustomize-deployment-prometheus-token.yaml
	$(KUBECTL) kustomize $(DEPLOY_ROOT)/deploy/monitoring > $(DEPLOY_OUT)/kustomize-monitoring.yaml

## deploy-policies: the policies shipped in the ConfigMaps must validate.
deploy-policies: image-context deploy-helm deploy-kustomize
	@mkdir -p $(DEPLOY_OUT)/policies
	@set -e; for f in kustomize-deployment helm-Deployment helm-upstream-Deployment helm-all-options; do \
		awk '/^  policy.yaml: \|/{p=1; next} p && /^ ? ? ?[^ ]/{p=0} p{sub(/^    /, ""); print}' \
			$(DEPLOY_OUT)/$$f.yaml > $(DEPLOY_OUT)/policies/$$f.yaml; \
		test -s $(DEPLOY_OUT)/policies/$$f.yaml || { echo "no policy found in $$f"; exit 1; }; \
		printf '%s: ' $$f; $(DEPLOY_IMAGE_CONTEXT)/descheduler validate --policy $(DEPLOY_OUT)/policies/$$f.yaml; \
	done

deploy-check: deploy-helm deploy-kustomize deploy-policies image-context
	sh $(DEPLOY_ROOT)/deploy/check-manifests.sh $(DEPLOY_OUT)/kustomize-*.yaml $(DEPLOY_OUT)/helm-*.yaml \
		$(DEPLOY_OUT)/untaint-kustomize.yaml
	@echo "deploy-check: OK"

.DEFAULT_GOAL := $(DEPLOY_SAVED_DEFAULT_GOAL)
