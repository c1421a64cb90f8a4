# One image serves the HTTP API and the MCP server; data is built from a mounted source tree on
# first start (or by `npm run etl` in a one-off container) into the /app/data volume.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/app/data DATABASE_PATH=/app/data/accounts.sqlite CENSUS_SOURCE_DIR=/census
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY etl ./etl
COPY catalog ./catalog
COPY web ./web
# The dashboard's front end, built once into dist/ (esbuild is a runtime dependency).
RUN node_modules/.bin/tsx web/build.ts
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=600s CMD node -e "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node_modules/.bin/tsx", "src/server.ts"]
