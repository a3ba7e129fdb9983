# One image for the tracker, the model server and the worker; docker-compose.yml picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
# better-sqlite3 falls back to a source build when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV NODE_ENV=production
CMD ["npm", "run", "worker"]
