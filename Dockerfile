# One image for the tracker, the model server and the worker; docker-compose.yml picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
# better-sqlite3 falls back to a source build when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# npm ci runs the package's own scripts too (postinstall: bin/install-temporal.js; prepare: the build
# of dist/ from the sources), so the sources are copied first.
COPY . .
RUN npm ci
ENV NODE_ENV=production
CMD ["npm", "run", "worker"]
