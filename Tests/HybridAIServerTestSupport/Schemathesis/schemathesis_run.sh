#!/usr/bin/env bash
# schemathesis_run.sh NAME SCHEMA BASE_URL [SCHEMATHESIS OPTIONS…] — one bounded, reproducible
# Schemathesis run: requests generated from the OpenAPI document SCHEMA (a URL or a file), positive
# and negative, sent to BASE_URL. Prints "NAME: PASS (…)" and exits 0, or "NAME: FAIL — …" and exits
# 1 when a check fails (a 5xx, an answer the document does not describe), 3 when the run goes over
# its time limit; 2 for bad arguments or no venv. Options after BASE_URL go to `schemathesis run`
# (headers, --exclude-tag, …).
#
#   BASE_URL   e.g. http://127.0.0.1:8080 (loopback only: nothing else is contacted)
#
# Settings (environment):
#   FUZZ_MAX_EXAMPLES   test cases per operation and phase (default 25)
#   FUZZ_TIME_LIMIT     seconds for the whole run before it is killed (default 600: a guard against a
#                       hang, not a speed target; the work is fixed by FUZZ_MAX_EXAMPLES)
#   FUZZ_CHECKS         Schemathesis checks (default not_a_server_error,response_schema_conformance)
#   FUZZ_WORKERS        concurrent workers (default 1: requests go out in a reproducible order)
#   FUZZ_REQUEST_TIMEOUT  seconds one answer may take (default 10)
#   FUZZ_KEEP=1         keep the temporary folder (the JUnit report is in it)
#
# Needs .deps/schemathesis-venv (scripts/bootstrap). Generation is deterministic (no seed, no example
# database); Schemathesis runs in a temporary folder with HOME and XDG folders there, so nothing is
# written into the repository, and with a dead proxy for anything that is not loopback.
set -euo pipefail

if [ $# -lt 3 ] || [ -z "$1" ] || [ -z "$2" ] || [ -z "$3" ]; then
  echo "usage: $0 NAME SCHEMA BASE_URL [SCHEMATHESIS OPTIONS…]" >&2; exit 2
fi
NAME="$1"
SCHEMA="$2"
BASE="${3%/}"
shift 3
if ! [[ "$BASE" =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/.*)?$ ]]; then
  echo "$NAME: BASE_URL must be http:// on the loopback interface, got '$BASE'" >&2; exit 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
DEPS="${HYBRIDAI_DEPS_DIR:-$ROOT/.deps}"
ST="$DEPS/schemathesis-venv/bin/schemathesis"
[ -x "$ST" ] || { echo "$NAME: $ST not found; run scripts/bootstrap" >&2; exit 2; }

MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-25}"
TIME_LIMIT="${FUZZ_TIME_LIMIT:-600}"
CHECKS="${FUZZ_CHECKS:-not_a_server_error,response_schema_conformance}"
WORKERS="${FUZZ_WORKERS:-1}"
REQUEST_TIMEOUT="${FUZZ_REQUEST_TIMEOUT:-10}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/schemathesis.XXXXXX")"
if [ "${FUZZ_KEEP:-0}" = 1 ]; then echo "$NAME: keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/home" "$WORK/cache" "$WORK/config" "$WORK/data"
# Our own config, so no schemathesis.toml from a parent folder applies. Warnings do not fail the run.
printf '[warnings]\nfail-on = []\n' > "$WORK/schemathesis.toml"
[[ "$SCHEMA" == http://* ]] || SCHEMA="$(cd "$(dirname "$SCHEMA")" && pwd)/$(basename "$SCHEMA")"

cmd=("$ST" --config-file "$WORK/schemathesis.toml" --no-color run "$SCHEMA"
  --url "$BASE"
  --checks "$CHECKS"
  --max-examples "$MAX_EXAMPLES"
  --generation-deterministic
  --workers "$WORKERS"
  --wait-for-schema 15
  --request-timeout "$REQUEST_TIMEOUT"
  --max-redirects 0
  --report junit --report-junit-path "$WORK/junit.xml"
  "$@")

printf '%s: schemathesis %s against %s (%s examples/operation, checks %s, limit %ss)\n' \
  "$NAME" "$("$ST" --version | awk '{print $NF}')" "$BASE" "$MAX_EXAMPLES" "$CHECKS" "$TIME_LIMIT"
start=$SECONDS
set +e
# Requests to anything but loopback go to a closed port (a dead proxy), so they fail at once.
( cd "$WORK" && env HOME="$WORK/home" XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config" \
    XDG_DATA_HOME="$WORK/data" HYPOTHESIS_STORAGE_DIRECTORY="$WORK/hypothesis" PYTHONDONTWRITEBYTECODE=1 \
    HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
    http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 \
    NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1 \
    timeout --kill-after=10 "$TIME_LIMIT" "${cmd[@]}" ) 2>&1 | tee "$WORK/output.txt"
code=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - start))

junit_count() { grep -o -m1 "$1=\"[0-9]*\"" "$WORK/junit.xml" 2>/dev/null | head -1 | tr -dc 0-9 || true; }
tests="$(junit_count tests)"; failures="$(junit_count failures)"; errors="$(junit_count errors)"
summary="test cases ${tests:-?}, failed ${failures:-?}, errors ${errors:-?}, ${elapsed}s"
if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
  echo "$NAME: FAIL — over the ${TIME_LIMIT}s limit ($summary)"; exit 3
elif [ "$code" -ne 0 ]; then
  echo "$NAME: FAIL — schemathesis exit $code ($summary)"; exit 1
fi
echo "$NAME: PASS ($summary)"
