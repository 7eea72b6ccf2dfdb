#!/bin/sh
# The container image's entry point: partner-api with the arguments given. The sandbox listens on
# 127.0.0.1 by default (its credentials are public), which inside a container nothing outside it
# can reach, not even a published port (-p): here it listens on every interface, and what is
# published decides who reaches it. A --host given after `sandbox` still wins (the last one counts).
set -eu
if [ "${1:-}" = sandbox ]; then
  shift
  set -- sandbox --host 0.0.0.0 "$@"
fi
exec partner-api "$@"
