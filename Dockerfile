# usage-descheduler container image.
#   docker build --build-arg VERSION=$(git describe --tags --always) -t usage-descheduler .
# `make -f deploy/deploy.mk image-context` runs the same go build (and
# checks this file still contains it), so the image's binary is known to
# build without a Docker engine.

# Build stage: a static binary (no cgo), without local paths (-trimpath).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd/ cmd/
COPY collectors/ collectors/
COPY pkg/ pkg/
COPY strategies/ strategies/
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/usage-descheduler/descheduler/pkg/app.version=${VERSION}" -o /out/descheduler ./cmd/descheduler

# Final stage: distroless static (CA certificates, tzdata, /etc/passwd with
# nonroot, no shell), running as the unprivileged nonroot user.
FROM gcr.io/distroless/static-debian12:nonroot
# The binary at both paths: /bin/descheduler is upstream's path (its Helm
# chart and manifests set command: ["/bin/descheduler"]), /descheduler the
# ENTRYPOINT this project's manifests rely on.
COPY --from=build /out/descheduler /bin/descheduler
COPY --from=build /out/descheduler /descheduler
USER 65532:65532
# The HTTPS port of /healthz, /readyz and /metrics (upstream's --secure-port).
EXPOSE 10258
ENTRYPOINT ["/descheduler"]
