#!/usr/bin/env bash
# Smoke test of a built binary, copied alone into an empty folder: sandbox up, /health 200,
# token 200, a list 200, SIGTERM exits 0.
set -euo pipefail
binary=$(realpath "${1:-dist/partner-api}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$binary" "$work/partner-api"
cd "$work"
port=$(( 20000 + RANDOM % 20000 ))

./partner-api --version
./partner-api sandbox --port "$port" >server.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.1
done
health=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")
token_json=$(curl -s -X POST "http://127.0.0.1:$port/v1/auth/token" -H 'X-API-Key: pk_sandbox_demo' -H 'X-API-Secret: sk_sandbox_demo')
token=$(printf '%s' "$token_json" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
list=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/properties?fields=id,title&limit=5" -H "Authorization: Bearer $token")
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
echo "smoke: health=$health token=$([ -n "$token" ] && echo 200 || echo missing) list=$list exit=$status"
[ "$health" = 200 ] && [ -n "$token" ] && [ "$list" = 200 ] && [ "$status" = 0 ] || { cat server.log; exit 1; }
