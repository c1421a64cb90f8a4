# One image serves the HTTP API and the MCP server; data is built from a mounted source tree on
# first start (in a child process, or by the ETL in a one-off container) into the /app/data volume.
# It runs compiled JavaScript: no TypeScript is compiled at start. `npm run test:container` builds
# and runs it (docs/deployment.md).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# postinstall: checks that better-sqlite3 loads on this Node (it does: one Node, its own headers).
COPY scripts ./scripts
RUN npm ci --omit=dev

FROM deps AS build
COPY tsconfig.json ./
COPY src ./src
COPY etl ./etl
COPY web ./web
# Each module transpiled on its own by esbuild (what tsx does at every start), into the same layout,
# so paths a module resolves relative to itself (../../catalog, ../package.json) hold unchanged.
RUN node_modules/.bin/esbuild $(find src etl -name '*.ts') --outdir=/out --outbase=. \
      --format=esm --platform=node --target=node22 --log-level=warning
# The dashboard's and explorer's front ends, built once into dist/web (esbuild and preact are
# runtime dependencies).
RUN node_modules/.bin/tsx web/build.ts

FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/app/data DATABASE_PATH=/app/data/accounts.sqlite CENSUS_SOURCE_DIR=/census
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY catalog ./catalog
COPY --from=build /out/ ./
COPY --from=build /app/dist/web ./dist/web
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=600s CMD node -e "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "src/server.js"]
