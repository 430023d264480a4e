#!/usr/bin/env bash
# registry_fuzz.sh BASE_URL ADMIN_TOKEN — fuzzes the model registry API with Schemathesis.
#
# Loads the OpenAPI document the server serves at BASE_URL/v1/openapi.yaml and sends generated
# requests (positive and negative) to every operation in it, with "Authorization: Bearer ADMIN_TOKEN".
# Fails (exit 1) when a response is a 5xx or does not match the document's response schema, or when
# most responses are 401/403 (a wrong token).
# Exit 2: bad arguments or no venv. Exit 3: the run went over the time limit.
#
#   BASE_URL   e.g. http://127.0.0.1:8080 (loopback only: nothing else is contacted)
#
# Settings (environment):
#   REGISTRY_FUZZ_MAX_EXAMPLES   test cases per operation and phase (default 25)
#   REGISTRY_FUZZ_TIME_LIMIT     seconds for the whole run before it is killed (default 600: a guard
#                                against a hang, not a speed target; the work is fixed by MAX_EXAMPLES.
#                                A quiet machine needs ~100 s, a loaded CI run took over 180 s)
#   REGISTRY_FUZZ_CHECKS         Schemathesis checks (default not_a_server_error,response_schema_conformance)
#   REGISTRY_FUZZ_WORKERS        concurrent workers (default 1: requests go out in a reproducible order)
#   REGISTRY_FUZZ_KEEP=1         keep the temporary folder (the JUnit report is in it)
#
# Needs .deps/schemathesis-venv (scripts/bootstrap). Generation is deterministic (no seed, no example
# database); Schemathesis runs in a temporary folder with HOME and XDG folders there, so nothing is
# written into the repository.
set -euo pipefail

if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: $0 BASE_URL ADMIN_TOKEN" >&2; exit 2
fi
BASE="${1%/}"
TOKEN="$2"
if ! [[ "$BASE" =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/.*)?$ ]]; then
  echo "registry_fuzz: BASE_URL must be http:// on the loopback interface, got '$BASE'" >&2; exit 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEPS="${HYBRIDAI_DEPS_DIR:-$ROOT/.deps}"
ST="$DEPS/schemathesis-venv/bin/schemathesis"
[ -x "$ST" ] || { echo "registry_fuzz: $ST not found; run scripts/bootstrap" >&2; exit 2; }

MAX_EXAMPLES="${REGISTRY_FUZZ_MAX_EXAMPLES:-25}"
TIME_LIMIT="${REGISTRY_FUZZ_TIME_LIMIT:-600}"
CHECKS="${REGISTRY_FUZZ_CHECKS:-not_a_server_error,response_schema_conformance}"
WORKERS="${REGISTRY_FUZZ_WORKERS:-1}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/registry-fuzz.XXXXXX")"
if [ "${REGISTRY_FUZZ_KEEP:-0}" = 1 ]; then echo "registry_fuzz: keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/home" "$WORK/cache" "$WORK/config" "$WORK/data"
# Our own config, so no schemathesis.toml from a parent folder applies. Warnings do not fail the run:
# the signed blob URL answers only 403 to generated signatures, as it must. A wrong admin token is
# caught before schemathesis starts (below).
printf '[warnings]\nfail-on = []\n' > "$WORK/schemathesis.toml"
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/v1/admin/models" || true)
if [ "$status" != 200 ]; then
  echo "registry_fuzz: the admin token is not accepted (GET /v1/admin/models answered $status)" >&2
  exit 2
fi

cmd=("$ST" --config-file "$WORK/schemathesis.toml" --no-color run "$BASE/v1/openapi.yaml"
  --url "$BASE"
  --exclude-tag chat
  --header "Authorization: Bearer $TOKEN"
  --checks "$CHECKS"
  --max-examples "$MAX_EXAMPLES"
  --generation-deterministic
  --workers "$WORKERS"
  --wait-for-schema 15
  --request-timeout 10
  --max-redirects 0
  --report junit --report-junit-path "$WORK/junit.xml")

printf 'registry_fuzz: schemathesis %s against %s (%s examples/operation, checks %s, limit %ss)\n' \
  "$("$ST" --version | awk '{print $NF}')" "$BASE" "$MAX_EXAMPLES" "$CHECKS" "$TIME_LIMIT"
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
  echo "registry_fuzz: FAIL — over the ${TIME_LIMIT}s limit ($summary)"; exit 3
elif [ "$code" -ne 0 ]; then
  echo "registry_fuzz: FAIL — schemathesis exit $code ($summary)"; exit 1
fi
echo "registry_fuzz: PASS ($summary)"
