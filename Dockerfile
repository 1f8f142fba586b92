# ModelPort gateway: multi-stage build on Node 20, running as a non-root user.
#   docker build -t modelport .
#   docker run -p 8080:8080 -e HOST=0.0.0.0 -e DATABASE_URL=postgres://… -e REDIS_URL=redis://… -e MODELPORT_SECRET_KEY=… modelport
# See docs/deployment.md for every variable and for running several instances.

FROM node:20-slim AS build
WORKDIR /app
# better-sqlite3 compiles a native module when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-native.mjs ./scripts/
COPY native ./native
COPY src ./src
COPY web ./web
# npm run build also compiles native/glibc-malloc (glibc's malloc_trim and arena limit) against Node's headers.
RUN npm run build && npm prune --omit=dev

FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=/data/modelport.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/native/glibc-malloc/build/Release/glibc_malloc.node ./native/glibc-malloc/build/Release/
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# The server drains on SIGTERM (requests in flight finish, usage is flushed): run node directly so it gets the signal.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
