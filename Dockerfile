# partner-api as a container image: built with Bun, run as the compiled binary alone, as uid and
# gid 10001, with its data (databases, the generated token secret) on the /app/data volume.
#
#   podman build -t partner-api .                           # or docker build; --build-arg BASELINE=1
#   podman run -d -p 127.0.0.1:8080:8080 --read-only --stop-timeout 15 \
#     -v ./config.json:/app/config.json:ro -v partner-api-data:/app/data partner-api
#   podman run --rm -p 127.0.0.1:8080:8080 partner-api sandbox
#
# docs/operators/deploying.md covers the image and compose; docs/operators/backup-and-upgrade.md,
# backups and upgrades.

FROM oven/bun:1 AS build
WORKDIR /src
COPY package.json bun.lock ./
# The compiled binary needs the runtime dependencies only.
RUN bun install --frozen-lockfile --production
COPY tsconfig.json ./
COPY src ./src
COPY scripts/build.ts ./scripts/build.ts
# The binary is built for the CPU the image is built on (x64 or arm64). BASELINE=1: for x64 CPUs
# without AVX2 (servers older than 2013). PARTNER_API_VERSION: the version --version prints.
ARG BASELINE=0
ARG PARTNER_API_VERSION
RUN if [ "$BASELINE" = 1 ]; then bun run build --baseline; else bun run build; fi

FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 partner-api \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /app --shell /usr/sbin/nologin partner-api \
 && mkdir -p /app/data && chown 10001:10001 /app/data && chmod 0750 /app/data
COPY --from=build /src/dist/partner-api /usr/local/bin/partner-api
COPY deploy/container/entrypoint.sh /usr/local/bin/partner-api-entrypoint
USER 10001:10001
WORKDIR /app
# Without "jwtSecret" in the config, the token secret made at first start is kept on the data
# volume: beside a config mounted read-only it could not be written, and in the container's own
# layer it would die with the container, every partner's token with it.
ENV PARTNER_API_JWT_SECRET_FILE=/app/data/jwt-secret
VOLUME /app/data
EXPOSE 8080
# Kept by docker and by podman's docker format (podman build --format docker); compose.yaml says it too.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["partner-api", "healthcheck"]
# SIGTERM: the server stops accepting, finishes in-flight requests (up to 10 s) and closes its
# databases; give it more than that before a kill (--stop-timeout 15, compose's stop_grace_period).
STOPSIGNAL SIGTERM
# Production: mount a config at /app/config.json (relative paths in it resolve against /app, so
# "data/agency.sqlite" is on the volume). Sandbox: `sandbox` as the command.
ENTRYPOINT ["partner-api-entrypoint"]
CMD ["serve", "--config", "/app/config.json"]
