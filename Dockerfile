# One image for the three APIs, the dashboard and the worker; docker-compose.yml picks the command.
# syntax=docker/dockerfile:1

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The typed clients' workspace (clients/): npm ci reads its package.json with the lockfile.
COPY clients/package.json ./clients/package.json
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY activities ./activities
COPY models ./models
COPY operations ./operations
COPY workflows ./workflows
COPY workers ./workers
COPY ops ./ops
COPY web ./web
RUN npm run build && node dist/ops/bundle-workflows.js dist/workflow-bundle.js && mkdir -p dist/web && cp -r web/dist dist/web/dist

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY clients/package.json ./clients/package.json
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000 3001 3002 3003
CMD ["node", "dist/api/news/server.js"]
