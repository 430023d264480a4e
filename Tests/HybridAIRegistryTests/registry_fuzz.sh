#!/usr/bin/env bash
# registry_fuzz.sh BASE_URL ADMIN_TOKEN — fuzzes the model registry API with Schemathesis.
#
# Loads the OpenAPI document the server serves at BASE_URL/v1/openapi.yaml and sends generated
# requests (positive and negative) to every operation in it but the web chat's, with
# "Authorization: Bearer ADMIN_TOKEN", through schemathesis_run.sh (its settings apply: FUZZ_*).
# Fails (exit 1) when a response is a 5xx or does not match the document's response schema.
# Exit 2: bad arguments, no venv, or a token the server does not accept. Exit 3: over the time limit.
#
# The signed blob URL answers only 403 to generated signatures, as it must (a warning, not a failure).
set -euo pipefail

if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: $0 BASE_URL ADMIN_TOKEN" >&2; exit 2
fi
BASE="${1%/}"
TOKEN="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if ! [[ "$BASE" =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/.*)?$ ]]; then
  echo "registry_fuzz: BASE_URL must be http:// on the loopback interface, got '$BASE'" >&2; exit 2
fi
# A wrong admin token would turn every case into a 401: caught before Schemathesis starts.
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/v1/admin/models" || true)
if [ "$status" != 200 ]; then
  echo "registry_fuzz: the admin token is not accepted (GET /v1/admin/models answered $status)" >&2
  exit 2
fi
exec "$ROOT/Tests/HybridAIServerTestSupport/Schemathesis/schemathesis_run.sh" registry_fuzz "$BASE/v1/openapi.yaml" "$BASE" \
  --exclude-tag chat --header "Authorization: Bearer $TOKEN"
