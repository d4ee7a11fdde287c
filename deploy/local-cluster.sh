#!/usr/bin/env bash
# A team server on one machine, on loopback (issue 36):
#   PostgreSQL (Debian's postgresql, initdb/pg_ctl as the postgres user, no systemd)
#   s3s-fs, an S3-compatible server (cargo install s3s-fs --version 0.14.1 --features binary --locked)
#   N replicas of `etlscope serve --catalog postgres://... --store s3://...`
#   nginx (Debian's) with deploy/nginx.conf in front of them
#
#   deploy/local-cluster.sh up [--replicas N] [--dir DIR] [--port PORT (default: a free one)]
#   deploy/local-cluster.sh status [--dir DIR]
#   deploy/local-cluster.sh down [--dir DIR]
#
# Everything lives in DIR (default /tmp/etlscope-cluster): data, logs, pid
# files, and cluster.env (the URLs and ports, for scripts and tests).
# ETLSCOPE_BIN picks the binary (default target/release/etlscope, built with
# `cargo build --release -p etlscope --features team`), S3S_FS
# the s3s-fs binary (default: on PATH, else ~/.cargo/bin/s3s-fs).
set -Eeuo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"

cmd="${1:-}"
[ $# -gt 0 ] && shift
replicas=3
dir=/tmp/etlscope-cluster
port=""
while [ $# -gt 0 ]; do
    case "$1" in
        --replicas) replicas="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
case "$replicas" in ''|*[!0-9]*) echo "--replicas takes a number" >&2; exit 2 ;; esac

bin="${ETLSCOPE_BIN:-$repo/target/release/etlscope}"
s3s="${S3S_FS:-$(command -v s3s-fs || echo "$HOME/.cargo/bin/s3s-fs")}"
# Debian's versioned folder holds every tool (PATH may have pg_ctl alone, as a link).
pgbin="$(dirname "$(readlink -f "$(command -v pg_ctl 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -1)")")"
nginx="$(command -v nginx || echo /usr/sbin/nginx)"
bucket=traces
# The replicas' upload limit, which nginx applies too (deploy/nginx.conf).
max_upload_mb="${MAX_UPLOAD_MB:-8192}"
access_key=etlscope-local
secret_key=etlscope-local-secret

# PostgreSQL refuses to run as root: as root, its tools run as postgres.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_port() { # port seconds [pid: stop waiting once it has exited]
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
            echo "the process for 127.0.0.1:$1 exited" >&2
            return 1
        fi
        sleep 0.05
    done
    echo "nothing listens on 127.0.0.1:$1 after $2 s" >&2
    return 1
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# A replica, started (or started again after a kill) on its port.
start_replica() { # index
    local i=$1 rport
    rport=$(cat "$dir/replica-$i/port")
    # shellcheck disable=SC1091
    . "$dir/cluster.env"
    AWS_ENDPOINT_URL="$S3_ENDPOINT" AWS_ACCESS_KEY_ID="$access_key" AWS_SECRET_ACCESS_KEY="$secret_key" \
        AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true \
        nohup "$bin" serve --addr "127.0.0.1:$rport" --data-dir "$dir/replica-$i" \
        --catalog "$CATALOG_URL" --store "s3://$bucket/library" --cache-dir "$dir/replica-$i/cache" \
        --max-upload-mb "$max_upload_mb" --trusted-proxy 127.0.0.1 \
        ${ETLSCOPE_REPLICA_FLAGS:-} >"$dir/replica-$i/log" 2>&1 &
    echo $! >"$dir/replica-$i/pid"
    wait_port "$rport" 20 "$(cat "$dir/replica-$i/pid")" || { tail -3 "$dir/replica-$i/log" >&2; return 1; }
}

up() {
    [ -x "$bin" ] || { echo "no etlscope binary at $bin: cargo build --release -p etlscope --features team, or set ETLSCOPE_BIN" >&2; exit 1; }
    [ -x "$s3s" ] || { echo "no s3s-fs at $s3s: cargo install s3s-fs --version 0.14.1 --features binary --locked" >&2; exit 1; }
    [ -x "$pgbin/pg_ctl" ] || { echo "no PostgreSQL: apt-get install postgresql" >&2; exit 1; }
    [ -x "$nginx" ] || { echo "no nginx: apt-get install nginx-light" >&2; exit 1; }
    if [ -f "$dir/cluster.env" ]; then echo "a cluster is already in $dir: $0 down --dir $dir first" >&2; exit 1; fi
    # A step that fails stops what the earlier ones started.
    trap 'echo "up failed: stopping what was started" >&2; down >&2' ERR
    mkdir -p "$dir"
    chmod 755 "$dir"

    # PostgreSQL: its own folder, loopback only, trust for the local user.
    local pgport s3port
    [ -n "$port" ] || port=$(free_port)
    pgport=$(free_port)
    mkdir -p "$dir/pg"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/pg"
    as_pg "$pgbin/initdb" -A trust -U etlscope --locale=C -E UTF8 -D "$dir/pg/data" >"$dir/pg/initdb.log"
    as_pg "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w \
        -o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1" start >/dev/null
    as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U etlscope etlscope

    # The S3-compatible server, one bucket (a folder of its root).
    s3port=$(free_port)
    mkdir -p "$dir/s3/$bucket"
    nohup "$s3s" --host 127.0.0.1 --port "$s3port" --access-key "$access_key" --secret-key "$secret_key" \
        "$dir/s3" >"$dir/s3.log" 2>&1 &
    echo $! >"$dir/s3.pid"
    wait_port "$s3port" 10

    cat >"$dir/cluster.env" <<ENV
CATALOG_URL=postgres://etlscope@127.0.0.1:$pgport/etlscope
PG_PORT=$pgport
PG_DATA=$dir/pg/data
S3_ENDPOINT=http://127.0.0.1:$s3port
S3_PORT=$s3port
S3_BUCKET=$bucket
S3_ACCESS_KEY=$access_key
S3_SECRET_KEY=$secret_key
REPLICAS=$replicas
URL=http://127.0.0.1:$port/
PORT=$port
ENV

    local servers="" i rport
    for ((i = 1; i <= replicas; i++)); do
        mkdir -p "$dir/replica-$i"
        rport=$(free_port)
        echo "$rport" >"$dir/replica-$i/port"
        echo "REPLICA_${i}_PORT=$rport" >>"$dir/cluster.env"
        start_replica "$i"
        servers="$servers        server 127.0.0.1:$rport max_fails=1 fail_timeout=2s;"$'\n'
    done

    mkdir -p "$dir/nginx"
    chmod 777 "$dir/nginx"
    local conf
    conf=$(<"$here/nginx.conf")
    conf=${conf//@LISTEN@/127.0.0.1:$port}
    conf=${conf//@MAX_BODY_BYTES@/$((max_upload_mb * 1048576))}
    # The replicas' default --header-timeout-secs and --body-timeout-secs (+1).
    conf=${conf//@HEADER_TIMEOUT@/5}
    conf=${conf//@BODY_TIMEOUT_NGINX@/31}
    conf=${conf//@PREFIX@/$dir/nginx}
    conf=${conf//@SERVERS@/${servers%$'\n'}}
    printf '%s\n' "$conf" >"$dir/nginx/nginx.conf"
    "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
    wait_port "$port" 10
    trap - ERR
    echo "etlscope team server: http://127.0.0.1:$port/ ($replicas replicas, PostgreSQL on $pgport, S3 on $s3port; state in $dir)"
}

status() {
    [ -f "$dir/cluster.env" ] || { echo "no cluster in $dir"; exit 1; }
    # shellcheck disable=SC1091
    . "$dir/cluster.env"
    local bad=0 i
    if as_pg "$pgbin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then echo "postgresql  up    127.0.0.1:$PG_PORT"; else echo "postgresql  DOWN"; bad=1; fi
    if alive "$dir/s3.pid"; then echo "s3s-fs      up    $S3_ENDPOINT"; else echo "s3s-fs      DOWN"; bad=1; fi
    for ((i = 1; i <= REPLICAS; i++)); do
        if alive "$dir/replica-$i/pid"; then echo "replica $i   up    http://127.0.0.1:$(cat "$dir/replica-$i/port")/"; else echo "replica $i   DOWN"; bad=1; fi
    done
    if alive "$dir/nginx/nginx.pid"; then echo "nginx       up    $URL"; else echo "nginx       DOWN"; bad=1; fi
    return $bad
}

down() {
    [ -d "$dir" ] || { echo "no cluster in $dir"; return 0; }
    if alive "$dir/nginx/nginx.pid"; then "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -s stop || true; fi
    local p
    for p in "$dir"/replica-*/pid "$dir/s3.pid"; do
        [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
    done
    [ -d "$dir/pg/data" ] && as_pg "$pgbin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    echo "stopped; $dir removed"
}

case "$cmd" in
    up) up ;;
    down) down ;;
    status) status ;;
    restart-replica) # index: start a replica again (after a kill), for the fault tests
        start_replica "${ETLSCOPE_REPLICA:?}" ;;
    *) echo "usage: $0 up|down|status [--replicas N] [--dir DIR] [--port PORT]" >&2; exit 2 ;;
esac
