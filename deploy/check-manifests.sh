#!/bin/sh
# Checks invariants of rendered manifests (kubectl kustomize / helm
# template output), one file per rendering: the pod is hardened and probed,
# RBAC is least privilege. Usage: check-manifests.sh FILE...
# Run by `make -f deploy/deploy.mk deploy-check`.
set -eu

failed=0
fail() {
	echo "check-manifests: $1: $2" >&2
	failed=1
}

# must FILE PATTERN WHY: an extended regular expression that must match.
must() {
	grep -Eq -- "$2" "$1" || fail "$1" "$3 (no match for /$2/)"
}

# mustnot FILE PATTERN WHY
mustnot() {
	if grep -Eqn -- "$2" "$1"; then
		fail "$1" "$3: $(grep -En -- "$2" "$1" | head -3 | tr '\n' ' ')"
	fi
}

for f in "$@"; do
	case "$f" in
	*monitoring*)
		must "$f" '^kind: PrometheusRule' "the alerts"
		must "$f" 'grafana_dashboard' "the dashboard ConfigMap"
		continue
		;;
	*untaint*)
		# The soft-taint removal Job (deploy/kustomize/untaint).
		must "$f" '^kind: Job' "a Job"
		must "$f" '^ *- untaint$' "the untaint command"
		must "$f" '--instance-name=' "the instance whose taints go"
		must "$f" 'runAsNonRoot: true' "non-root"
		must "$f" 'readOnlyRootFilesystem: true' "read-only root filesystem"
		must "$f" '^ *- ALL$' "all capabilities dropped"
		must "$f" '^ *- patch$' "nodes patch"
		mustnot "$f" 'pods/eviction' "no eviction right"
		mustnot "$f" '"\*"|^ *- "?\*"?$' "wildcard in RBAC"
		mustnot "$f" '(^ *- |[[ ,])"?(delete|deletecollection|escalate|bind|impersonate)"?([],]|$)' "destructive or escalating verb"
		continue
		;;
	esac
	# Pod hardening.
	must "$f" 'priorityClassName: system-cluster-critical' "critical priority"
	must "$f" 'runAsNonRoot: true' "non-root"
	must "$f" 'runAsUser: 65532' "the image's nonroot uid"
	must "$f" 'readOnlyRootFilesystem: true' "read-only root filesystem"
	must "$f" 'allowPrivilegeEscalation: false' "no privilege escalation"
	must "$f" '^ *- ALL$' "all capabilities dropped"
	must "$f" 'type: RuntimeDefault' "RuntimeDefault seccomp profile"
	must "$f" 'path: /healthz' "liveness probe"
	must "$f" 'path: /readyz' "readiness probe"
	must "$f" '^ *limits:' "resource limits"
	must "$f" '^ *requests:' "resource requests"
	mustnot "$f" 'name: GOMEMLIMIT' "GOMEMLIMIT left to the binary (90% of the memory limit)"
	must "$f" '--policy-config-file=/policy-dir/policy.yaml' "the mounted policy"
	mustnot "$f" 'privileged: true|hostNetwork: true|hostPID: true' "privileged pod"
	# Least-privilege RBAC: no wildcards, no destructive or escalating verbs.
	must "$f" 'pods/eviction' "the eviction subresource"
	# The Role names the ConfigMap the binary is told to use, and grants
	# neither create nor patch on ConfigMaps or Leases (the manifests
	# pre-create them; RBAC cannot scope create by name).
	hist=$(grep -Eo -- '--history-configmap=[^" ]*' "$f" | head -1 | cut -d= -f2)
	[ -n "$hist" ] || hist=descheduler-history
	must "$f" "resourceNames: \\[\"$hist\"\\]|^ *- $hist\$" "the history ConfigMap $hist scoped by name in the Role"
	must "$f" "^  name: $hist\$" "the pre-created history ConfigMap $hist"
	if grep -EA4 'resources: \["(configmaps|leases)"\]|^ *- (configmaps|leases)$' "$f" | grep -Eq '"(create|patch)"|^ *- (create|patch)$'; then
		fail "$f" "create or patch granted on configmaps or leases"
	fi
	mustnot "$f" '"\*"|^ *- "?\*"?$' "wildcard in RBAC"
	mustnot "$f" '(^ *- |[[ ,])"?(delete|deletecollection|escalate|bind|impersonate)"?([],]|$)' "destructive or escalating verb"
	# Secrets: only by name (the Prometheus token), never all of them.
	# A rule starts at "- apiGroups:" and ends at the next one or at a
	# top-level key (helm keeps the written order, kustomize sorts keys).
	if awk '
		function close_rule() { if (sec && !names) bad = 1; sec = 0; names = 0 }
		/^ *- apiGroups:/ || /^[A-Za-z-]/ { close_rule() }
		/^ *(- )?resourceNames:/ { names = 1 }
		/resources: .*"secrets"|^ *- "?secrets"?$/ { sec = 1 }
		END { close_rule(); exit !bad }' "$f"; then
		fail "$f" "a secrets rule without resourceNames"
	fi
	case "$f" in
	*helm-*) must "$f" 'scheme: HTTPS' "probes over HTTPS (the --secure-port)" ;;
	esac
	case "$f" in
	*prometheus-token* | *upstream*)
		must "$f" '^ *(resourceNames: \[|- )"?(prometheus-token|descheduler-prometheus)"?' "get/list/watch on the Prometheus token Secret by name"
		;;
	*) mustnot "$f" '"secrets"|^ *- secrets$' "no Secret access unless the policy names a token Secret" ;;
	esac
	case "$f" in
	*upstream*)
		# Upstream chart keys (ci/upstream-values.yaml) reach the objects.
		must "$f" '^ *- /bin/descheduler$' "upstream's command"
		must "$f" 'team: platform' "commonLabels"
		must "$f" 'automountServiceAccountToken: false' "automountServiceAccountToken"
		must "$f" 'name: kube-api-access' "extraServiceAccountVolumes/Mounts"
		must "$f" 'name: init-wait' "initContainers"
		must "$f" 'ndots' "dnsConfig"
		must "$f" 'example.com/pod' "podAnnotations/podLabels"
		;;
	esac
	case "$f" in
	*upstream-Deployment*)
		must "$f" 'ipFamilyPolicy: SingleStack' "service.ipFamilyPolicy"
		must "$f" 'scheme: https' "the ServiceMonitor scrapes HTTPS"
		must "$f" 'serverName: usage-descheduler.kube-system.svc' "serviceMonitor.serverName"
		must "$f" 'example.com/deployment' "deploymentAnnotations"
		;;
	*upstream-CronJob*)
		must "$f" 'example.com/cronjob' "cronJobAnnotations/cronJobLabels"
		must "$f" 'example.com/job' "jobAnnotations/jobLabels"
		must "$f" 'timeZone: "Etc/UTC"' "timeZone"
		;;
	esac
	case "$f" in
	*soft-taint* | *all-options*) must "$f" 'patch' "nodes patch for soft taints" ;;
	*) mustnot "$f" 'soft-taint|Soft taints' "no node patching unless soft taints are on" ;;
	esac
	case "$f" in
	*all-options*)
		must "$f" 'helm.sh/hook: pre-delete' "the untaint hook"
		must "$f" '^ *- untaint$' "the untaint command in the hook"
		;;
	*helm-*) mustnot "$f" 'helm.sh/hook' "no untaint hook without soft taints" ;;
	esac
	case "$f" in
	*Deployment* | *kustomize-deployment* | *soft-taint* | *all-options*)
		must "$f" '^kind: Deployment' "a Deployment"
		must "$f" 'replicas: 2' "two replicas"
		must "$f" '--leader-elect=true' "leader election"
		must "$f" '--descheduling-interval=5m' "a 5m interval"
		must "$f" 'coordination.k8s.io' "Lease RBAC"
		;;
	*CronJob* | *cronjob*)
		must "$f" '^kind: CronJob' "a CronJob"
		must "$f" 'concurrencyPolicy: Forbid' "no overlapping runs"
		mustnot "$f" 'leader-elect' "no leader election for one-shot runs"
		;;
	*Job* | *job*)
		must "$f" '^kind: Job' "a Job"
		mustnot "$f" 'leader-elect' "no leader election for one-shot runs"
		;;
	esac
done
exit "$failed"
