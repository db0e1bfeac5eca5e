# The image of both convoy processes (deploy/*/deployment.yaml pick the entry point with `command`).
# Each process runs from its bundle (.convoy/cmd/*.mjs, built by src/cmd/bundle-processes.ts in the
# `bundle` stage): ~80 MiB less resident memory than Node running the TypeScript sources
# (docs/design.md#process-bundles). The sources stay in the image: the bundles read the default rules,
# the UI's files and the CRDs beside them.
# kustomize and helm for render.type Kustomize and Helm, built from the same pinned Go modules as
# src/testenv/tools-versions.json names (keep the two in step).
FROM golang:1.26 AS tools
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
ARG KUSTOMIZE_VERSION=v5.8.2
ARG HELM_VERSION=v4.3.1
WORKDIR /build/kustomize
RUN go mod init convoy.local/tools/kustomize \
 && go get sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION} \
 && go build -trimpath -ldflags '-s -w' -o /out/kustomize sigs.k8s.io/kustomize/kustomize/v5
WORKDIR /build/helm
RUN go mod init convoy.local/tools/helm \
 && go get helm.sh/helm/v4@${HELM_VERSION} \
 && go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}" \
      -o /out/helm helm.sh/helm/v4/cmd/helm

FROM node:24-slim AS bundle
WORKDIR /app
COPY package.json package-lock.json ./
# esbuild is a dev dependency; no install script is needed to bundle.
RUN npm ci --ignore-scripts
COPY src ./src
RUN node src/cmd/bundle-processes.ts

FROM node:24-slim

# git (and ssh for git@ URLs) for git sources; CA certificates for https remotes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY src ./src
COPY --from=bundle /app/.convoy/cmd ./.convoy/cmd
COPY --from=tools /out/kustomize /out/helm /usr/local/bin/

ENV NODE_ENV=production
# The image's `node` user, by number so that runAsNonRoot can verify it.
USER 1000:1000
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "--expose-gc-as=__convoyGc", ".convoy/cmd/controller-manager.mjs"]
