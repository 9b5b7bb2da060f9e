#!/usr/bin/env bash
# Makes the two services Herald needs available on this machine, and says where they are:
#   - Redis at $REDIS_URL (default redis://127.0.0.1:6379): started if nothing answers.
#   - A MongoDB-compatible store at $MONGO_URL (default mongodb://127.0.0.1:27017):
#     FerretDB v1.24.2 on its SQLite backend, built once from the Go module proxy (cached)
#     and started if nothing answers.
# Idempotent: running it again finds both up and only prints where they are.
set -euo pipefail

FERRETDB_VERSION=v1.24.2
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
MONGO_HOST=127.0.0.1
MONGO_PORT=27017
CACHE_DIR="${HERALD_CACHE_DIR:-$HOME/.cache/herald}"
DATA_DIR="${HERALD_DATA_DIR:-$HOME/.local/share/herald}"
FERRETDB_BIN="$CACHE_DIR/ferretdb-$FERRETDB_VERSION/ferretdb"

log() { printf '[dev-services] %s\n' "$*" >&2; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

wait_port() {
  local host=$1 port=$2 what=$3
  for _ in $(seq 1 100); do
    port_open "$host" "$port" && return 0
    sleep 0.1
  done
  log "$what did not start listening on $host:$port"
  return 1
}

ensure_redis() {
  if port_open "$REDIS_HOST" "$REDIS_PORT"; then
    log "Redis already answers at $REDIS_HOST:$REDIS_PORT"
    return
  fi
  if ! command -v redis-server >/dev/null; then
    log "installing redis-server (Debian package)"
    apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
  fi
  mkdir -p "$DATA_DIR/redis"
  # Development Redis: no persistence needed; production settings are in the README.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$DATA_DIR/redis" --logfile "$DATA_DIR/redis/redis.log" >/dev/null
  wait_port "$REDIS_HOST" "$REDIS_PORT" Redis
  log "started Redis at $REDIS_HOST:$REDIS_PORT"
}

build_ferretdb() {
  [ -x "$FERRETDB_BIN" ] && return
  command -v go >/dev/null || { log "Go is needed to build FerretDB (none on PATH)"; exit 1; }
  log "building FerretDB $FERRETDB_VERSION (once; cached in $CACHE_DIR)"
  # `go install ...@v1.24.2` is what FerretDB documents, but it needs the module's version list
  # (for its deprecation check), which the module proxy reachable here refuses. We download the
  # exact module version instead and build it. The module zip lacks build/version/version.txt
  # (FerretDB's release tooling writes it from git), and the binary refuses to start without
  # it, so we write the version there ourselves.
  local src work
  src=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || { log "could not download FerretDB $FERRETDB_VERSION"; exit 1; }
  work=$(mktemp -d)
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" >"$work/build/version/version.txt"
  mkdir -p "$(dirname "$FERRETDB_BIN")"
  (cd "$work" && go build -trimpath -o "$FERRETDB_BIN.tmp" ./cmd/ferretdb)
  mv "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  rm -rf "$work"
}

ensure_ferretdb() {
  if port_open "$MONGO_HOST" "$MONGO_PORT"; then
    log "MongoDB-compatible store already answers at $MONGO_HOST:$MONGO_PORT"
    return
  fi
  build_ferretdb
  mkdir -p "$DATA_DIR/ferretdb/sqlite"
  nohup "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$DATA_DIR/ferretdb/sqlite/" \
    --state-dir="$DATA_DIR/ferretdb" --listen-addr="$MONGO_HOST:$MONGO_PORT" \
    --telemetry=disable --log-level=warn >"$DATA_DIR/ferretdb/ferretdb.log" 2>&1 &
  wait_port "$MONGO_HOST" "$MONGO_PORT" FerretDB
  log "started FerretDB $FERRETDB_VERSION (SQLite in $DATA_DIR/ferretdb/sqlite) at $MONGO_HOST:$MONGO_PORT"
}

ensure_redis
ensure_ferretdb
log "REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT MONGO_URL=mongodb://$MONGO_HOST:$MONGO_PORT/herald"
