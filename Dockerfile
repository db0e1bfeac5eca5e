# The image of both convoy processes (deploy/*/deployment.yaml pick the entry point with `command`).
# Node 24 runs the TypeScript sources directly (type stripping): there is no build step.
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

ENV NODE_ENV=production
# The image's `node` user, by number so that runAsNonRoot can verify it.
USER 1000:1000
CMD ["node", "src/cmd/controller-manager.ts"]
