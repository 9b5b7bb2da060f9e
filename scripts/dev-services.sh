#!/usr/bin/env bash
# Makes the two services Herald needs available on this machine, and says where they are:
#   - Redis at $REDIS_URL (default redis://127.0.0.1:6379): started if nothing answers.
#   - A MongoDB-compatible store at $MONGO_URL (default mongodb://127.0.0.1:27017):
#     FerretDB v1.24.2 on its SQLite backend, built once from the Go module proxy (cached)
#     and started if nothing answers.
#   - With `cluster` (or HERALD_REDIS_CLUSTER=1): a Redis Cluster of 3 masters and 3 replicas on
#     127.0.0.1:7001-7006 (HERALD_CLUSTER_PORT, the first port), for REDIS_MODE=cluster.
#   - With `sentinel` (or HERALD_REDIS_SENTINEL=1): a master (6380), a replica (6381) and three
#     sentinels (26380-26382) watching it as `herald`, for REDIS_MODE=sentinel.
#   Both on loopback, data in a temp dir ($HERALD_REDIS_TMP, default /tmp/herald-redis), no
#   persistence (docs/scaling.md has the settings production needs). `all`: both.
# Idempotent: running it again finds everything up and only prints where it is.
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
  if ! start_ferretdb; then
    # A test database left broken by a FerretDB that died mid-write (seen once: SIGBUS in SQLite's
    # WAL) stops the next start ("no such table"). Test databases are disposable: set them aside
    # and start again; anything else is left for a person to look at.
    local broken="$DATA_DIR/ferretdb/broken-$(date +%s)"
    mkdir -p "$broken"
    mv "$DATA_DIR/ferretdb/sqlite"/herald_test_* "$broken"/ 2>/dev/null || true
    log "FerretDB did not start (its log: $DATA_DIR/ferretdb/ferretdb.log); moved the test databases to $broken and trying again"
    start_ferretdb || exit 1
  fi
  log "started FerretDB $FERRETDB_VERSION (SQLite in $DATA_DIR/ferretdb/sqlite) at $MONGO_HOST:$MONGO_PORT"
}

start_ferretdb() {
  local log_file="$DATA_DIR/ferretdb/ferretdb.log"
  nohup "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$DATA_DIR/ferretdb/sqlite/" \
    --state-dir="$DATA_DIR/ferretdb" --listen-addr="$MONGO_HOST:$MONGO_PORT" \
    --telemetry=disable --log-level=warn >"$log_file" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do
    port_open "$MONGO_HOST" "$MONGO_PORT" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  log "FerretDB did not start listening on $MONGO_HOST:$MONGO_PORT"
  return 1
}

WANT_CLUSTER=${HERALD_REDIS_CLUSTER:-0}
WANT_SENTINEL=${HERALD_REDIS_SENTINEL:-0}
for arg in "$@"; do
  case "$arg" in
    cluster) WANT_CLUSTER=1 ;;
    sentinel) WANT_SENTINEL=1 ;;
    all) WANT_CLUSTER=1 WANT_SENTINEL=1 ;;
    *) log "unknown argument: $arg (cluster, sentinel or all)"; exit 2 ;;
  esac
done
REDIS_TMP="${HERALD_REDIS_TMP:-${TMPDIR:-/tmp}/herald-redis}"
CLUSTER_PORT=${HERALD_CLUSTER_PORT:-7001}
SENTINEL_MASTER_PORT=${HERALD_SENTINEL_MASTER_PORT:-6380}
SENTINEL_PORT=${HERALD_SENTINEL_PORT:-26380}
SENTINEL_NAME=herald

# A loopback redis-server on $1 with its data and log in $REDIS_TMP/$1; the rest are its options.
start_redis_node() {
  local port=$1
  shift
  mkdir -p "$REDIS_TMP/$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
    --dir "$REDIS_TMP/$port" --logfile "$REDIS_TMP/$port/redis.log" \
    --pidfile "$REDIS_TMP/$port/redis.pid" "$@" >/dev/null 9>&-
}

# A cluster node on $1; its nodes.conf (in its data dir) keeps its id and peers across restarts.
start_cluster_node() {
  start_redis_node "$1" --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-node-timeout 2000 --repl-diskless-sync-delay 0
}

ensure_cluster() {
  # Three masters, each with one replica (a shard can fail over: CLUSTER FAILOVER on its replica).
  local ports=() port
  for i in 0 1 2 3 4 5; do ports+=($((CLUSTER_PORT + i))); done
  local up=1
  for port in "${ports[@]}"; do port_open "$REDIS_HOST" "$port" || up=0; done
  local live=""
  for port in "${ports[@]}"; do port_open "$REDIS_HOST" "$port" && live=$port && break; done
  if [ -n "$live" ] &&
    redis-cli -p "$live" cluster info 2>/dev/null | grep -q 'cluster_state:ok' &&
    redis-cli -p "$live" cluster info 2>/dev/null | grep -q 'cluster_known_nodes:6'; then
    if [ "$up" = 1 ]; then
      log "Redis Cluster already answers at $REDIS_HOST:${ports[0]}-${ports[5]}"
      return
    fi
    # A node died (a chaos run killed a master) and the rest carry on: started again on its own
    # nodes.conf, it rejoins, as a replica of whichever node took its slots.
    local back=1
    for port in "${ports[@]}"; do
      port_open "$REDIS_HOST" "$port" && continue
      [ -f "$REDIS_TMP/$port/nodes.conf" ] || { back=0; break; }
      start_cluster_node "$port"
      wait_port "$REDIS_HOST" "$port" "Redis Cluster node"
      log "restarted Redis Cluster node $REDIS_HOST:$port (it rejoins as a replica)"
    done
    [ "$back" = 1 ] && return
  fi
  # Anything else (a node down, an older 3-node cluster, one that never formed): start afresh.
  for port in "${ports[@]}"; do
    if port_open "$REDIS_HOST" "$port"; then
      redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
      for _ in $(seq 1 50); do port_open "$REDIS_HOST" "$port" || break; sleep 0.1; done
    fi
    rm -rf "${REDIS_TMP:?}/$port"
    start_cluster_node "$port"
  done
  for port in "${ports[@]}"; do wait_port "$REDIS_HOST" "$port" "Redis Cluster node"; done
  # The first three become the masters, the last three their replicas.
  redis-cli --cluster create "${ports[@]/#/$REDIS_HOST:}" --cluster-replicas 1 --cluster-yes >/dev/null
  for _ in $(seq 1 200); do
    local ready=1
    for port in "${ports[@]}"; do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ready=0
    done
    # The replicas' roles spread a moment after the slots do.
    [ "$(redis-cli -p "${ports[0]}" cluster nodes 2>/dev/null | grep -c slave)" = 3 ] || ready=0
    [ "$ready" = 1 ] && break
    sleep 0.1
  done
  log "started a Redis Cluster at $REDIS_HOST:${ports[0]}-${ports[5]} (3 masters, 3 replicas)"
}

ensure_sentinel() {
  local master=$SENTINEL_MASTER_PORT replica=$((SENTINEL_MASTER_PORT + 1))
  local sentinels=("$SENTINEL_PORT" $((SENTINEL_PORT + 1)) $((SENTINEL_PORT + 2)))
  if port_open "$REDIS_HOST" "${sentinels[0]}" &&
    redis-cli -p "${sentinels[0]}" sentinel get-master-addr-by-name "$SENTINEL_NAME" 2>/dev/null | grep -q .; then
    # A data node stopped (a failover test killed the master): back as a replica of the master
    # the sentinels name now.
    local now port
    now=$(redis-cli -p "${sentinels[0]}" sentinel get-master-addr-by-name "$SENTINEL_NAME" | tail -1)
    for port in "$master" "$replica"; do
      if ! port_open "$REDIS_HOST" "$port"; then
        start_redis_node "$port" --repl-diskless-sync-delay 0 --replicaof "$REDIS_HOST" "$now"
        wait_port "$REDIS_HOST" "$port" "Sentinel's data node"
        log "restarted $REDIS_HOST:$port as a replica of $REDIS_HOST:$now"
      fi
    done
    log "Sentinel already answers at $REDIS_HOST:${sentinels[0]}-${sentinels[2]} (master $SENTINEL_NAME at port $now)"
    return
  fi
  # No 5 s pause before a full resync (a demoted master's, after a failover), so that a replica
  # is back in sync within a second or so.
  port_open "$REDIS_HOST" "$master" || start_redis_node "$master" --repl-diskless-sync-delay 0
  port_open "$REDIS_HOST" "$replica" ||
    start_redis_node "$replica" --repl-diskless-sync-delay 0 --replicaof "$REDIS_HOST" "$master"
  wait_port "$REDIS_HOST" "$master" "Sentinel's master"
  wait_port "$REDIS_HOST" "$replica" "Sentinel's replica"
  local port
  for port in "${sentinels[@]}"; do
    port_open "$REDIS_HOST" "$port" && continue
    mkdir -p "$REDIS_TMP/$port"
    # A sentinel rewrites its config file: each gets its own, written afresh.
    cat >"$REDIS_TMP/$port/sentinel.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
dir $REDIS_TMP/$port
logfile $REDIS_TMP/$port/sentinel.log
pidfile $REDIS_TMP/$port/sentinel.pid
sentinel monitor $SENTINEL_NAME $REDIS_HOST $master 2
sentinel down-after-milliseconds $SENTINEL_NAME 1000
sentinel failover-timeout $SENTINEL_NAME 5000
sentinel parallel-syncs $SENTINEL_NAME 1
CONF
    # 9>&-: a daemon that kept the lock's descriptor would hold the lock for as long as it runs.
    redis-server "$REDIS_TMP/$port/sentinel.conf" --sentinel >/dev/null 9>&-
  done
  for port in "${sentinels[@]}"; do wait_port "$REDIS_HOST" "$port" Sentinel; done
  log "started Sentinel at $REDIS_HOST:${sentinels[0]}-${sentinels[2]} over master $master, replica $replica"
}

ensure_redis
ensure_ferretdb
if [ "$WANT_CLUSTER" = 1 ] || [ "$WANT_SENTINEL" = 1 ]; then
  # Test files ask for these in parallel: one at a time checks and starts them.
  mkdir -p "$REDIS_TMP"
  exec 9>"$REDIS_TMP/.lock"
  command -v flock >/dev/null && flock 9
  [ "$WANT_CLUSTER" = 1 ] && ensure_cluster
  [ "$WANT_SENTINEL" = 1 ] && ensure_sentinel
fi
log "REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT MONGO_URL=mongodb://$MONGO_HOST:$MONGO_PORT/herald"
[ "$WANT_CLUSTER" = 1 ] &&
  log "cluster: REDIS_MODE=cluster REDIS_URL=redis://$REDIS_HOST:$CLUSTER_PORT,$REDIS_HOST:$((CLUSTER_PORT + 1))"
[ "$WANT_SENTINEL" = 1 ] &&
  log "sentinel: REDIS_MODE=sentinel REDIS_SENTINELS=$REDIS_HOST:$SENTINEL_PORT,$REDIS_HOST:$((SENTINEL_PORT + 1)),$REDIS_HOST:$((SENTINEL_PORT + 2)) REDIS_SENTINEL_NAME=$SENTINEL_NAME"
exit 0
