# Build with Bun, run the compiled binary alone as a non-root user.
FROM oven/bun:1 AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN bun run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /app partner-api \
 && mkdir -p /app/data && chown -R partner-api /app
COPY --from=build /src/dist/partner-api /usr/local/bin/partner-api
USER partner-api
WORKDIR /app
VOLUME /app/data
EXPOSE 8080
# Production: mount a config at /app/config.json. Sandbox: override with `sandbox`.
ENTRYPOINT ["partner-api"]
CMD ["serve", "--config", "/app/config.json"]
