# Shared helpers of scripts/run and scripts/test (sourced, not run).
#
#   ensure_tools build|test  install what building (and testing) needs, skipping what is there
#   ensure_postgres          find or start PostgreSQL and export DATABASE_URL
#   build_frontend           trunk build --release into dist/, then its .br and .gz copies
#   stop_postgres            stop the private cluster if ensure_postgres started it
#   ensure_redis             find or start Redis (the live rooms' Redis hold) and export REDIS_URL
#   stop_redis               stop the private redis-server if ensure_redis started it
#   ensure_mariadb           find or start MariaDB (the InnoDB schedules') and export MYSQL_URL
#   stop_mariadb             stop the private mariadbd if ensure_mariadb started it
#
# Every install is skipped when the tool is already there at the right version, so a second
# run costs nothing. Nothing here downloads a prebuilt binary: tools come from crates.io,
# npm and Debian's packages only.

TRUNK_VERSION=0.21.14
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
# Trunk would otherwise ask crates.io for a newer version of itself at every build.
export TRUNK_SKIP_VERSION_CHECK=true

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
warn() { printf '\033[33mwarning:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "installing needs root: run '$*' as root, then try again"
    fi
}

APT_UPDATED=
apt_install() {
    command -v apt-get >/dev/null || die "cannot install $* here (no apt-get): install it by hand"
    if [ -z "$APT_UPDATED" ]; then
        say "apt-get update"
        as_root apt-get update -qq
        APT_UPDATED=1
    fi
    say "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# The version of a package as Cargo.lock pins it.
locked_version() {
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' \
        "$ROOT/Cargo.lock"
}

ensure_rust() {
    command -v cargo >/dev/null || die "Rust is missing: install it with rustup (https://rustup.rs)"
    cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
    cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
    rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
    # The standard library's sources, to rebuild it for the page (see build_frontend).
    have_rust_src || rustup component add rust-src || warn "no rust-src: the page is built with the prebuilt std (larger)"
}

have_rust_src() {
    rustup component list --installed 2>/dev/null | grep -q '^rust-src'
}

ensure_trunk() {
    if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
        say "cargo install trunk $TRUNK_VERSION (a few minutes, once)"
        # Trunk's own release profile asks for fat LTO and one codegen unit, which triples the
        # compile time on a small machine for no gain here.
        CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
            cargo install trunk --version "$TRUNK_VERSION" --locked --force
    fi
}

# Trunk uses a wasm-bindgen from PATH only when its version is exactly the one in Cargo.lock;
# otherwise it tries to download one, which fails here.
ensure_wasm_bindgen() {
    local want
    want=$(locked_version wasm-bindgen)
    [ -n "$want" ] || die "no wasm-bindgen in Cargo.lock"
    if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]; then
        say "cargo install wasm-bindgen-cli $want (a few minutes, once)"
        # Deliberately without --locked: that is the way it is known to install on these machines.
        cargo install wasm-bindgen-cli --version "$want" --force
    fi
}

ensure_chromium() {
    local missing=()
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    command -v chromedriver >/dev/null || missing+=(chromium-driver)
    [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
}

ensure_node() {
    command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
    [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] ||
        die "the browser tests need Node.js 20 or later (playwright-core), found $(node --version)"
}

# PostgreSQL's isolation tester, which the export tests feed the generated specs to (Debian
# ships it with the client programs, also when the server runs elsewhere).
# The fault tests start private clusters of their own (initdb, pg_ctl), whatever server the
# other tests use.
ensure_pg_server_bins() {
    [ -n "$(pg_bin_dir)" ] && [ -x "$(pg_bin_dir)/initdb" ] && return
    apt_install postgresql
}

ensure_isolationtester() {
    [ -n "${ISOLATIONTESTER:-}" ] && return
    compgen -G '/usr/lib/postgresql/*/lib/pgxs/src/test/isolation/isolationtester' >/dev/null ||
        apt_install postgresql-client
}

# playwright-core (it drives the system Chromium and never downloads a browser) and axe-core
# (the accessibility checks the browser tests inject into the page).
ensure_e2e_deps() {
    local pkg want have
    for pkg in playwright-core axe-core; do
        want=$(node -p "require('$ROOT/e2e/package-lock.json').packages['node_modules/$pkg'].version")
        have=$(node -p "try { require('$ROOT/e2e/node_modules/$pkg/package.json').version } catch { '' }")
        if [ "$want" != "$have" ]; then
            say "npm ci (e2e: playwright-core, axe-core)"
            (cd "$ROOT/e2e" && npm ci --no-audit --no-fund --loglevel=error)
            return
        fi
    done
}

# ensure_tools build: what `trunk build` and `cargo run` need.
# ensure_tools test:  that, plus curl, the isolation tester, PostgreSQL's server programs (for
#                     the fault tests' private clusters), redis-server (for a private Redis when
#                     none answers), MariaDB's server programs (for a private mariadbd and the
#                     fault tests'), Node.js, Chromium and the e2e packages.
ensure_tools() {
    local kind=${1:-build}
    ensure_rust
    ensure_wasm_bindgen
    ensure_trunk
    if [ "$kind" = test ]; then
        command -v curl >/dev/null || apt_install curl ca-certificates
        ensure_isolationtester
        ensure_pg_server_bins
        ensure_redis_server_bin
        ensure_mariadb_server_bin
        ensure_node
        ensure_chromium
        ensure_e2e_deps
    fi
}

# Builds the page into dist/ with the wasm-release profile (see frontend/index.html).
#
# With the std sources at hand, the standard library is rebuilt for the page with panics that
# abort on the spot, so no panic message, location or formatting code ships (about 30 KB less
# gzipped). Cargo's build-std and rustc's -Cpanic=immediate-abort are unstable options; this
# toolchain accepts them with RUSTC_BOOTSTRAP=1, set here for this one build only. The target
# rustflags given this way replace those of .cargo/config.toml, so they repeat them. std is
# built with its `optimize_for_size` feature: sorting, above all, in its small forms (the
# page sorts short lists; the fast sorts were a tenth of its code).
build_frontend() {
    local -a std=()
    if have_rust_src; then
        std=(
            RUSTC_BOOTSTRAP=1
            CARGO_UNSTABLE_BUILD_STD=std,panic_abort
            CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
            CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--cfg erase_components -Zunstable-options -Cpanic=immediate-abort"
        )
    fi
    say "trunk build --release (frontend → dist/${std[*]:+, std rebuilt with immediate abort})"
    (cd "$ROOT" && env "${std[@]}" trunk build --release)
    # The whole page: InnoDB's model, the shapes and the seats. The server sends it to an address
    # on InnoDB or asking for it, or needing the shapes beside the seats (backend/src/http/html.rs).
    say "trunk build --release --features innodb (the whole page: InnoDB's model, the shapes, the seats → dist/innodb-page/)"
    (cd "$ROOT" && env "${std[@]}" trunk build --release --features innodb \
        --dist dist/innodb-page --public-url /innodb-page/)
    # Chapter 6 alone: the shapes beyond seats (counters, usernames), which the first bundle
    # leaves out, without the races for seats (chapters 1-5, the home page) that it has.
    say "trunk build --release --no-default-features --features shapes (chapter 6 alone → dist/shapes-page/)"
    (cd "$ROOT" && env "${std[@]}" trunk build --release --no-default-features --features shapes \
        --dist dist/shapes-page --public-url /shapes-page/)
    # The live room's pages are a bundle of their own, so the chapters' first visit never
    # carries them: built after the chapters (whose build replaces dist/) into dist/room-page/,
    # which the server serves for /room/… (backend/src/http/html.rs).
    say "trunk build --release frontend/room (the live room's pages → dist/room-page/)"
    (cd "$ROOT" && env "${std[@]}" trunk build frontend/room/index.html \
        --release --dist dist/room-page --public-url /room-page/)
    local wasm room_wasm innodb_wasm shapes_wasm
    wasm=$(ls "$ROOT"/dist/*.wasm 2>/dev/null | head -n 1)
    [ -n "$wasm" ] || die "trunk wrote no .wasm into dist/"
    innodb_wasm=$(ls "$ROOT"/dist/innodb-page/*.wasm 2>/dev/null | head -n 1)
    [ -n "$innodb_wasm" ] || die "trunk wrote no .wasm into dist/innodb-page/"
    shapes_wasm=$(ls "$ROOT"/dist/shapes-page/*.wasm 2>/dev/null | head -n 1)
    [ -n "$shapes_wasm" ] || die "trunk wrote no .wasm into dist/shapes-page/"
    room_wasm=$(ls "$ROOT"/dist/room-page/*.wasm 2>/dev/null | head -n 1)
    [ -n "$room_wasm" ] || die "trunk wrote no .wasm into dist/room-page/"
    # The .br and .gz copies the server sends precompressed (brotli in Rust: no tool to install).
    say "backend compress dist (brotli and gzip copies of the page's files)"
    (cd "$ROOT" && cargo run -q -p backend -- compress dist >/dev/null) ||
        die "could not compress the page's files"
    WASM_RAW=$(wc -c <"$wasm")
    WASM_GZIP=$(wc -c <"$wasm.gz")
    WASM_BROTLI=$(wc -c <"$wasm.br")
    say "page built: $(basename "$wasm") is $((WASM_RAW / 1024)) KiB, $((WASM_BROTLI / 1024)) KiB brotli, $((WASM_GZIP / 1024)) KiB gzipped"
    say "chapter 6 alone: $(basename "$shapes_wasm") is $(($(wc -c <"$shapes_wasm") / 1024)) KiB, $(($(wc -c <"$shapes_wasm.br") / 1024)) KiB brotli"
    say "with InnoDB's model: $(basename "$innodb_wasm") is $(($(wc -c <"$innodb_wasm") / 1024)) KiB, $(($(wc -c <"$innodb_wasm.br") / 1024)) KiB brotli"
    say "room pages built: $(basename "$room_wasm") is $(($(wc -c <"$room_wasm") / 1024)) KiB, $(($(wc -c <"$room_wasm.br") / 1024)) KiB brotli"
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL: DATABASE_URL if set; else the server on 127.0.0.1:5432 if it answers; else a
# private cluster in target/pgdata on a free port, started from the installed binaries (and
# PostgreSQL installed from Debian's packages if there are none).
# LASTSEAT_PG_HOST and LASTSEAT_PG_PORT change where the shared server is looked for.

PG_PRIVATE_STARTED=
PG_DATA=
PG_USER=

ensure_postgres() {
    if [ -n "${DATABASE_URL:-}" ]; then
        say "PostgreSQL: DATABASE_URL is set, using it"
        if command -v pg_isready >/dev/null && ! pg_isready -q -d "$DATABASE_URL"; then
            warn "DATABASE_URL does not answer yet"
        fi
        return
    fi
    local host=${LASTSEAT_PG_HOST:-127.0.0.1} port=${LASTSEAT_PG_PORT:-5432}
    if pg_answers "$host" "$port"; then
        export DATABASE_URL="postgres://postgres@$host:$port/postgres"
        say "PostgreSQL: found on $host:$port"
        return
    fi
    say "PostgreSQL: nothing on $host:$port, starting a private cluster"
    start_private_postgres
}

pg_answers() {
    if command -v pg_isready >/dev/null; then
        pg_isready -q -h "$1" -p "$2" -t 3 2>/dev/null
    else
        (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
    fi
}

pg_bin_dir() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# free_port [FIRST [WHAT]]: the first port from FIRST (54329) on which nothing listens.
free_port() {
    local first=${1:-54329} what=${2:-PostgreSQL} port
    for port in $(seq "$first" $((first + 100))); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
    die "no free port for $what in $first-$((first + 100))"
}

# Runs a command as the cluster's owner (PostgreSQL refuses to run as root).
as_pg() {
    if [ "$PG_USER" = "$(id -un)" ]; then "$@"
    else runuser -u "$PG_USER" -- "$@"
    fi
}

start_private_postgres() {
    local bin
    bin=$(pg_bin_dir)
    if [ -z "$bin" ]; then
        apt_install postgresql
        bin=$(pg_bin_dir)
        [ -n "$bin" ] || die "PostgreSQL installed but no initdb under /usr/lib/postgresql/*/bin"
    fi

    PG_USER=$(id -un)
    if [ "$(id -u)" -eq 0 ]; then
        PG_USER=postgres
        id -u postgres >/dev/null 2>&1 ||
            useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
    fi

    PG_DATA="$ROOT/target/pgdata"
    mkdir -p "$PG_DATA"
    [ "$(id -u)" -ne 0 ] || chown "$PG_USER:" "$PG_DATA"
    chmod 700 "$PG_DATA"
    if ! as_pg test -w "$PG_DATA"; then
        # The checkout sits where the postgres user cannot reach (under /root, say).
        PG_DATA="${TMPDIR:-/tmp}/lastseat-pgdata-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
        mkdir -p "$PG_DATA"
        [ "$(id -u)" -ne 0 ] || chown "$PG_USER:" "$PG_DATA"
        chmod 700 "$PG_DATA"
    fi

    if [ ! -f "$PG_DATA/PG_VERSION" ]; then
        say "initdb $PG_DATA"
        as_pg "$bin/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C \
            >"$PG_DATA.initdb.log" 2>&1 || { cat "$PG_DATA.initdb.log" >&2; die "initdb failed"; }
        # A throwaway cluster for tests: durability buys nothing, speed does.
        cat >>"$PG_DATA/postgresql.conf" <<'EOF'
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    fi

    local port
    if as_pg "$bin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
        port=$(sed -n 4p "$PG_DATA/postmaster.pid")
        say "PostgreSQL: private cluster already running on port $port"
    else
        port=$(free_port)
        as_pg "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -o "-p $port" -w -t 60 start \
            >/dev/null || { tail -n 20 "$PG_DATA/server.log" >&2; die "PostgreSQL did not start"; }
        PG_PRIVATE_STARTED=$bin
        say "PostgreSQL: private cluster started on 127.0.0.1:$port ($PG_DATA)"
    fi
    export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
}

# Stops the private cluster, only if this run started it.
stop_postgres() {
    if [ -n "$PG_PRIVATE_STARTED" ]; then
        as_pg "$PG_PRIVATE_STARTED/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
        PG_PRIVATE_STARTED=
    fi
}

# ---------------------------------------------------------------------------------------------
# Redis (the live rooms' Redis hold): REDIS_URL if set; else Redis on 127.0.0.1:6379 if it
# answers PING; else a private redis-server on a free port, without persistence, its pid and
# log in target/redis/ (redis-server installed from Debian's packages if absent), stopped by
# stop_redis. LASTSEAT_REDIS_HOST and LASTSEAT_REDIS_PORT change where a running Redis is
# looked for.

REDIS_PRIVATE_PID=
REDIS_DIR=

ensure_redis() {
    if [ -n "${REDIS_URL:-}" ]; then
        say "Redis: REDIS_URL is set, using it"
        return
    fi
    local host=${LASTSEAT_REDIS_HOST:-127.0.0.1} port=${LASTSEAT_REDIS_PORT:-6379}
    if redis_answers "$host" "$port"; then
        export REDIS_URL="redis://$host:$port"
        say "Redis: found on $host:$port"
        return
    fi
    say "Redis: nothing answers on $host:$port, starting a private redis-server"
    start_private_redis
}

# Whether a Redis at HOST PORT answers PING with PONG within 2 s.
redis_answers() {
    (
        exec 3<>"/dev/tcp/$1/$2" || exit 1
        printf 'PING\r\n' >&3
        IFS= read -r -t 2 reply <&3 || exit 1
        [ "${reply%$'\r'}" = "+PONG" ]
    ) 2>/dev/null
}

ensure_redis_server_bin() {
    command -v redis-server >/dev/null || apt_install redis-server
}

start_private_redis() {
    ensure_redis_server_bin
    command -v redis-server >/dev/null || die "redis-server installed but not on PATH"
    REDIS_DIR="$ROOT/target/redis"
    mkdir -p "$REDIS_DIR"
    local port pid i
    port=$(free_port 63790 Redis)
    # No RDB snapshots and no append-only file: the holds live a minute, a restart may lose them.
    # fd 3 closed: in scripts/test it is a step's log pipe, which must close when the step ends.
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
        --dir "$REDIS_DIR" --daemonize yes --pidfile "$REDIS_DIR/redis-$port.pid" \
        --logfile "$REDIS_DIR/redis-$port.log" >/dev/null 3>&- ||
        die "redis-server did not start (see $REDIS_DIR/redis-$port.log)"
    for i in $(seq 1 100); do
        redis_answers 127.0.0.1 "$port" && break
        sleep 0.1
    done
    redis_answers 127.0.0.1 "$port" || {
        tail -n 20 "$REDIS_DIR/redis-$port.log" >&2
        die "redis-server on port $port does not answer PING"
    }
    pid=$(cat "$REDIS_DIR/redis-$port.pid")
    REDIS_PRIVATE_PID=$pid
    export REDIS_URL="redis://127.0.0.1:$port"
    say "Redis: private redis-server started on 127.0.0.1:$port (pid $pid)"
}

# Stops the private redis-server, only if this run started it, and waits for it to go.
stop_redis() {
    if [ -n "$REDIS_PRIVATE_PID" ]; then
        kill "$REDIS_PRIVATE_PID" 2>/dev/null || true
        local i
        for i in $(seq 1 50); do
            kill -0 "$REDIS_PRIVATE_PID" 2>/dev/null || break
            sleep 0.1
        done
        REDIS_PRIVATE_PID=
    fi
}

# ---------------------------------------------------------------------------------------------
# MariaDB (the real database of the schedules on InnoDB): MYSQL_URL if set; else the local
# server, over its socket as root (/run/mysqld/mysqld.sock, LASTSEAT_MYSQL_SOCKET) or on
# 127.0.0.1:3306 (LASTSEAT_MYSQL_HOST, LASTSEAT_MYSQL_PORT); else a private mariadbd from the
# installed binaries (mariadb-server from Debian's packages if absent) on a free port, with a
# throwaway data directory under $TMPDIR, stopped and removed by stop_mariadb.

MARIADB_PRIVATE_PID=
MARIADB_DIR=

ensure_mariadb() {
    if [ -n "${MYSQL_URL:-}" ]; then
        say "MariaDB: MYSQL_URL is set, using it"
        return
    fi
    local socket=${LASTSEAT_MYSQL_SOCKET:-/run/mysqld/mysqld.sock}
    local host=${LASTSEAT_MYSQL_HOST:-127.0.0.1} port=${LASTSEAT_MYSQL_PORT:-3306}
    if [ -S "$socket" ] && mariadb_answers --socket="$socket"; then
        export MYSQL_URL="mysql://root@localhost/mysql?socket=$socket"
        say "MariaDB: found on $socket"
        return
    fi
    if mariadb_answers --host="$host" --port="$port" --protocol=tcp; then
        export MYSQL_URL="mysql://root@$host:$port/mysql"
        say "MariaDB: found on $host:$port"
        return
    fi
    say "MariaDB: nothing answers on $socket or $host:$port, starting a private mariadbd"
    start_private_mariadb
}

# Whether a MariaDB reached with these client options answers root within 3 s.
mariadb_answers() {
    command -v mariadb >/dev/null || return 1
    mariadb --no-defaults --connect-timeout=3 --user=root "$@" -e 'select 1' >/dev/null 2>&1
}

mariadbd_bin() {
    command -v mariadbd 2>/dev/null || { [ -x /usr/sbin/mariadbd ] && echo /usr/sbin/mariadbd; }
}

ensure_mariadb_server_bin() {
    [ -n "$(mariadbd_bin)" ] && command -v mariadb-install-db >/dev/null && return
    apt_install mariadb-server
}

start_private_mariadb() {
    ensure_mariadb_server_bin
    local bin port i
    bin=$(mariadbd_bin)
    [ -n "$bin" ] || die "mariadb-server installed but no mariadbd on PATH or in /usr/sbin"
    # mariadbd refuses to run as root unless told to; anyone else runs it as themselves.
    local -a user=()
    [ "$(id -u)" -ne 0 ] || user=(--user=root)
    MARIADB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/lastseat-mariadb.XXXXXX")
    mariadb-install-db --no-defaults "${user[@]}" --datadir="$MARIADB_DIR/data" \
        --auth-root-authentication-method=normal --skip-test-db >"$MARIADB_DIR/install.log" 2>&1 ||
        { cat "$MARIADB_DIR/install.log" >&2; die "mariadb-install-db failed"; }
    port=$(free_port 33061 MariaDB)
    # A throwaway server for tests: durability buys nothing, speed does. fd 3 closed: in
    # scripts/test it is a step's log pipe, which must close when the step ends.
    "$bin" --no-defaults "${user[@]}" --datadir="$MARIADB_DIR/data" --port="$port" \
        --bind-address=127.0.0.1 --socket="$MARIADB_DIR/mysqld.sock" \
        --pid-file="$MARIADB_DIR/mariadbd.pid" --log-error="$MARIADB_DIR/error.log" \
        --innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=0 --skip-log-bin \
        --max-connections=400 >/dev/null 2>&1 3>&- &
    MARIADB_PRIVATE_PID=$!
    for i in $(seq 1 300); do
        mariadb_answers --host=127.0.0.1 --port="$port" --protocol=tcp && break
        kill -0 "$MARIADB_PRIVATE_PID" 2>/dev/null || break
        sleep 0.1
    done
    mariadb_answers --host=127.0.0.1 --port="$port" --protocol=tcp || {
        tail -n 20 "$MARIADB_DIR/error.log" >&2
        die "the private mariadbd on port $port does not answer"
    }
    export MYSQL_URL="mysql://root@127.0.0.1:$port/mysql"
    say "MariaDB: private mariadbd started on 127.0.0.1:$port ($MARIADB_DIR)"
}

# Stops the private mariadbd, only if this run started it, waits for it to go and removes its
# data directory.
stop_mariadb() {
    if [ -n "$MARIADB_PRIVATE_PID" ]; then
        kill "$MARIADB_PRIVATE_PID" 2>/dev/null || true
        local i
        for i in $(seq 1 100); do
            kill -0 "$MARIADB_PRIVATE_PID" 2>/dev/null || break
            sleep 0.1
        done
        MARIADB_PRIVATE_PID=
        rm -rf "$MARIADB_DIR"
    fi
}
