#!/usr/bin/env bash
# npm test: type-check, build, then every test on SQLite and, at the same time, every
# gateway test but the browser ones (those that start the server through test/support/gateway-harness.ts)
# again on Postgres, each gateway on a fresh database (TEST_DATABASE_URL names the server).
#   MODELPORT_TEST_DIALECTS=sqlite           SQLite only
#   MODELPORT_TEST_DIALECTS=postgres         the Postgres pass only
#   TEST_POSTGRES_URL=postgres://…/postgres  which server (default postgres://postgres@127.0.0.1:5432/postgres)
#   Extra arguments are test files: only those run, on both dialects.
#   MODELPORT_ANALYTICS_E2E_REQUESTS=N        requests the analytics e2e test sends (default here 10000; the test's own
#                                            default, and `npm run test:analytics`, send 300000)
set -uo pipefail
cd "$(dirname "$0")/.."

dialects="${MODELPORT_TEST_DIALECTS:-sqlite,postgres}"
# The full 300,000 take minutes on a small machine: npm test checks the same exactness on fewer.
export MODELPORT_ANALYTICS_E2E_REQUESTS="${MODELPORT_ANALYTICS_E2E_REQUESTS:-10000}"
postgres_url="${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

npm run --silent typecheck || exit 1
# Layers that point one way and no cycles (.dependency-cruiser.cjs).
npm run --silent lint:layers || exit 1
npm run --silent build || exit 1

if [ "$#" -gt 0 ]; then
  all_tests="$*"
  gateway_tests="$*"
else
  all_tests="$(find src test -name '*.test.ts' | sort)"
  # The browser tests drive the same dashboard API on either database: the Postgres pass runs the API's own tests.
  gateway_tests="$(grep -l 'startGateway(' $(find test -name '*.test.ts' -not -path 'test/browser/*') | sort)"
fi

postgres_answers() {
  node -e "const pg=require('pg');const c=new pg.Client({connectionString:process.argv[1],connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$postgres_url"
}

status=0
postgres_pid=""
postgres_log="$(mktemp -t modelport-postgres-tests.XXXXXX)"
if [[ ",$dialects," == *",postgres,"* ]]; then
  if postgres_answers; then
    echo "== Postgres pass (gateway tests on $(echo "$postgres_url" | sed 's#//[^@]*@#//#')) running alongside; its report follows the SQLite one"
    # shellcheck disable=SC2086
    TEST_DATABASE_URL="$postgres_url" node --import tsx --test --test-concurrency=1 $gateway_tests >"$postgres_log" 2>&1 &
    postgres_pid=$!
  else
    echo "== Postgres pass FAILED to start: no Postgres answers at $postgres_url (CI starts it: .ci/run)"
    status=1
  fi
fi

if [[ ",$dialects," == *",sqlite,"* ]]; then
  echo "== SQLite pass (every test)"
  # shellcheck disable=SC2086
  node --import tsx --test --test-concurrency=1 $all_tests || status=1
fi

if [ -n "$postgres_pid" ]; then
  wait "$postgres_pid" || status=1
  echo "== Postgres pass report"
  cat "$postgres_log"
fi
rm -f "$postgres_log"
exit "$status"
