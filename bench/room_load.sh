#!/usr/bin/env bash
# The live rooms' figures: `backend load` on the atomic defence at 32 clients against a release
# server on a fresh database of the shared PostgreSQL, next to pgbench running the same
# conditional UPDATE on the same server (bench/pgbench_claim.sh), with `uptime` beside each.
# Each load gets a server of its own (a room's round pool keeps its connections for 30 s, and
# three rooms' pools at once would crowd a shared server's max_connections); pgbench runs once
# the server is gone, for the same reason. After each load, the server's own account of where
# the requests' time went (`room phases` lines of its log: backend/src/room/phases.rs).
#
#   bench/room_load.sh [BACKEND_BINARY]     (default target/release/backend)
#
# DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres); the
# database lastseat_room_bench_<pid> is made on it and dropped afterwards. SECONDS_ (10): each
# run's length.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${1:-$here/../target/release/backend}
admin=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=lastseat_room_bench_$$
url=${admin%/*}/$db
secs=${SECONDS_:-10}
log=$(mktemp)
server=
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=
    fi
}
trap 'stop_server; psql -q "$admin" -c "drop database if exists $db with (force)"; rm -f "$log"' EXIT
psql -q "$admin" -c "create database $db"
load() {
    DATABASE_URL=$url "$bin" serve --addr 127.0.0.1:0 --dist /nonexistent >"$log" 2>&1 &
    server=$!
    local base= i
    for i in $(seq 1 300); do
        base=$(grep -oE 'http://[0-9.:]+' "$log" | head -n 1 || true)
        [ -n "$base" ] && curl -fsS -o /dev/null "$base/api/health" 2>/dev/null && break
        sleep 0.1
    done
    [ -n "$base" ] || { cat "$log"; exit 1; }
    echo "## backend load --defence atomic_update --buyers 32 $*   ($(uptime | sed 's/.*load/load/'))"
    "$bin" load --url "$base" --defence atomic_update --buyers 32 "$@" 2>/dev/null
    stop_server
    # Where the server says the requests' time went (room/phases.rs, every 5 s of load); an
    # older server says nothing.
    sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'room phases.*' | sed 's/^/server: /' || true
    echo
}
load --seats 8 --duration "$secs"
load --seats 500 --duration "$secs" --release
load --seats 500 --duration 3
echo "## bench/pgbench_claim.sh losing 8   ($(uptime | sed 's/.*load/load/'))"
DATABASE_URL=$url SECONDS_=$secs "$here/pgbench_claim.sh" losing 8
echo "## bench/pgbench_claim.sh winning 500   ($(uptime | sed 's/.*load/load/'))"
DATABASE_URL=$url SECONDS_=$secs "$here/pgbench_claim.sh" winning 500
