#!/usr/bin/env bash
# Starts the server as the README's quick start does (fresh SQLite file, first-start
# bootstrap), sends the README's curl with the printed key and router, and checks
# that a routed answer with _meta comes back. Used by CI; safe to run by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
# A free port, so a server left running elsewhere can never answer in our place.
port=${QUICKSTART_PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
out="$work/start.out"
# Its own process group: npm start runs node as a child, and both must stop with this script.
DATABASE_URL="$work/modelport.db" PORT=$port setsid npm start >"$out" 2>&1 &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 150); do
  grep -q "listening at http://127.0.0.1:$port" "$out" && break
  kill -0 $pid 2>/dev/null || { echo "npm start exited:"; cat "$out"; exit 1; }
  sleep 0.2
done
grep -q "listening at http://127.0.0.1:$port" "$out" || { echo "npm start did not listen on $port:"; cat "$out"; exit 1; }
key=$(sed -n 's/^  API key *: \(mp_[0-9A-Za-z]*\).*/\1/p' "$out")
router=$(sed -n 's/^  router id *: \(rt_[0-9A-Za-z]*\).*/\1/p' "$out")
if [ -z "$key" ] || [ -z "$router" ]; then echo "quick start printed no key/router:"; cat "$out"; exit 1; fi
body=$(curl -sS "http://127.0.0.1:$port/api/router/chat/completions" \
  -H "Authorization: Bearer $key" -H "Content-Type: application/json" \
  -d "{\"model\":\"$router\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]}")
echo "$body" | node -e '
  let text = ""; process.stdin.on("data", (c) => (text += c)).on("end", () => {
    const body = JSON.parse(text);
    if (body.object !== "chat.completion" || !body._meta || typeof body._meta.cost !== "number") {
      console.error("quick start answer is not a routed completion:", text); process.exit(1);
    }
    console.log(`quick start OK: ${body._meta.modelUsed}, cost $${body._meta.cost}, ${body._meta.carbonGrams} g CO2`);
  });'
if grep -q "$key" <(grep -v '^  ' "$out" | grep -v 'Bearer'); then echo "the key leaked into the logs"; exit 1; fi
# The dashboard is served at / from the same server (built by npm install).
page=$(curl -sS "http://127.0.0.1:$port/")
echo "$page" | grep -q '<div id="root">' || { echo "the dashboard is not served at /:"; echo "$page" | head -c 400; exit 1; }
echo "dashboard OK at http://127.0.0.1:$port/"
