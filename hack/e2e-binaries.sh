#!/usr/bin/env bash
# Builds the binaries the end-to-end suite runs (etcd, kube-apiserver,
# kube-scheduler, kube-controller-manager, kwok, metrics-server) once per
# pinned version into a cache directory outside the repository, and skips the
# build when the cached binaries are present and report the expected versions.
#
# Usage: hack/e2e-binaries.sh            build what is missing, print the directory
#        E2E_BIN_DIR=DIR hack/e2e-binaries.sh   use another cache directory
set -euo pipefail

K8S_VERSION=v1.34.4
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.7.0
METRICS_SERVER_VERSION=v0.8.0
NEED_GIB=5

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="$ROOT/test/e2e/tools"
BIN_DIR="${E2E_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/usage-descheduler/k8s-$K8S_VERSION}"
GO="${GO:-go}"

log() { echo "e2e-binaries: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# version_ok NAME EXPECTED: the cached binary exists and prints EXPECTED in its version.
version_ok() {
	local bin="$BIN_DIR/$1" want="$2" out
	[[ -x "$bin" ]] || return 1
	out="$("$bin" --version 2>&1 || true)"
	[[ "$out" == *"$want"* ]]
}

missing=()
version_ok kube-apiserver "Kubernetes $K8S_VERSION" || missing+=(kube-apiserver)
version_ok kube-scheduler "Kubernetes $K8S_VERSION" || missing+=(kube-scheduler)
version_ok kube-controller-manager "Kubernetes $K8S_VERSION" || missing+=(kube-controller-manager)
version_ok etcd "${ETCD_VERSION#v}" || missing+=(etcd)
version_ok kwok "$KWOK_VERSION" || missing+=(kwok)
version_ok metrics-server "$METRICS_SERVER_VERSION" || missing+=(metrics-server)

if [[ ${#missing[@]} -eq 0 ]]; then
	log "all binaries cached in $BIN_DIR"
	echo "$BIN_DIR"
	exit 0
fi
log "missing or wrong version in $BIN_DIR: ${missing[*]}"

command -v "$GO" >/dev/null || die "the Go toolchain ('$GO') is required to build ${missing[*]}"

# free_gib DIR: free space in GiB on the file system holding DIR (or its nearest existing parent).
free_gib() {
	local d="$1"
	while [[ ! -d "$d" ]]; do d="$(dirname "$d")"; done
	df -Pk "$d" | awk 'NR==2 {print int($4 / 1048576)}'
}
for d in "$BIN_DIR" "$("$GO" env GOCACHE)" "$("$GO" env GOMODCACHE)"; do
	free="$(free_gib "$d")"
	if ((free < NEED_GIB)); then
		die "building ${missing[*]} needs about ${NEED_GIB} GiB free (module cache ~1 GiB, build cache ~3.6 GiB, binaries ~0.4 GiB); only ${free} GiB free for $d"
	fi
done

mkdir -p "$BIN_DIR"
STAGE="$(mktemp -d "$BIN_DIR/.build.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
start=$SECONDS

k8s=()
for b in kube-apiserver kube-scheduler kube-controller-manager; do
	[[ " ${missing[*]} " == *" $b "* ]] && k8s+=("k8s.io/kubernetes/cmd/$b")
done
if [[ ${#k8s[@]} -gt 0 ]]; then
	log "building ${k8s[*]} $K8S_VERSION (cold: ~8-15 min on 2 cores)"
	vpkg=k8s.io/component-base/version
	minor="${K8S_VERSION#v1.}"
	minor="${minor%%.*}"
	ldflags="-s -w -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean"
	(cd "$TOOLS" && GOFLAGS=-mod=readonly CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$ldflags" -o "$STAGE/" "${k8s[@]}")
fi
if [[ " ${missing[*]} " == *" etcd "* ]]; then
	log "building etcd $ETCD_VERSION"
	(cd "$TOOLS/etcd" && GOFLAGS=-mod=readonly CGO_ENABLED=0 "$GO" build -trimpath -ldflags "-s -w" -o "$STAGE/etcd" go.etcd.io/etcd/server/v3)
fi
if [[ " ${missing[*]} " == *" kwok "* ]]; then
	log "building kwok $KWOK_VERSION"

	GOBIN="$STAGE" CGO_ENABLED=0 GOFLAGS= "$GO" install -trimpath \
		-ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
fi
if [[ " ${missing[*]} " == *" metrics-server "* ]]; then
	log "building metrics-server $METRICS_SERVER_VERSION (cold: ~3 min on 2 cores)"
	# --version prints client-go's version variable, which metrics-server's
	# own Makefile sets the same way (without it: v0.0.0-master).
	GOBIN="$STAGE" CGO_ENABLED=0 GOFLAGS= "$GO" install -trimpath \
		-ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION" \
		"sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION"
fi
mv -f "$STAGE"/* "$BIN_DIR"/

for b in "${missing[@]}"; do
	case "$b" in
	etcd) version_ok etcd "${ETCD_VERSION#v}" || die "built etcd does not report ${ETCD_VERSION#v}" ;;
	kwok) version_ok kwok "$KWOK_VERSION" || die "built kwok does not report $KWOK_VERSION" ;;
	metrics-server) version_ok metrics-server "$METRICS_SERVER_VERSION" || die "built metrics-server does not report $METRICS_SERVER_VERSION" ;;
	*) version_ok "$b" "Kubernetes $K8S_VERSION" || die "built $b does not report Kubernetes $K8S_VERSION" ;;
	esac
done
log "built ${missing[*]} in $((SECONDS - start)) s into $BIN_DIR"
echo "$BIN_DIR"
