#!/usr/bin/env bash
# cluster.sh: a local Tideline cluster of N node processes (each broker + controller) on 127.0.0.1.
#
#   scripts/cluster.sh start [N]      start N nodes (default 3), building the jars if needed; waits until each serves
#   scripts/cluster.sh status         each node (state, pid, Kafka, gRPC, quorum and metrics addresses), then the
#                                     cluster's view from `admin cluster --describe` (the controller, metadata
#                                     offsets, broker states, fenced brokers) and under-replicated partitions
#   scripts/cluster.sh stop [NODE]    SIGTERM to the nodes this script started (or to node NODE only), SIGKILL
#                                     after a bound; no process left
#   scripts/cluster.sh kill NODE      SIGKILL node NODE (a crash: its next start recovers its logs)
#   scripts/cluster.sh restart NODE   stop node NODE the orderly way (if it runs), start it again with its config
#                                     and data, and wait until it serves
#   scripts/cluster.sh pause NODE     SIGSTOP node NODE (it holds its connections but answers nothing: a partition
#                                     that no firewall is needed for); status shows it as paused
#   scripts/cluster.sh resume NODE    SIGCONT a paused node
#   scripts/cluster.sh logs NODE [-f] print node NODE's log (follow it with -f)
#   scripts/cluster.sh help           this usage (exit 0; an unknown command prints it and exits 2)
#
# NODE is a node id of the cluster (1..N). Exit codes: 0 done, 1 the node is not running where it must be (kill,
# pause, resume), has no log yet (logs) or did not serve in time (start, restart), 2 bad arguments. Only the processes named by this script's pid
# files, and still running the node it started, are ever signalled.
#
# Node i (1-based) serves Apache Kafka's protocol (Kafka's clients and tools, docs/kafka-protocol.md) on
# 127.0.0.1:(9091+i), so Kafka's bootstrap address is Kafka's well-known 127.0.0.1:9092; the Tideline clients (the
# gRPC API: scripts/tideline, the Java client) on 127.0.0.1:(9391+i), so their bootstrap address is 127.0.0.1:9392.
# Its metadata quorum (Ratis) port is 9191+i and its metrics endpoint http://127.0.0.1:(9291+i)/metrics. A client
# of one protocol that reaches the other's port gets a named answer, not a hang (docs/kafka-protocol.md "Ports").
# Everything lives under data/cluster of the repository:
#   node-i/logs, node-i/metadata   the node's log dir and metadata log dir
#   node-i.properties              its generated config (the keys of `tideline server --config`)
#   node-i.pid, node-i.log         its process id and its output (the previous run's in node-i.log.prev)
# The generated configs shorten two of Kafka's intervals for a cluster on one machine: broker.heartbeat.interval.ms
# (500) and leader.imbalance.check.interval.seconds (10, so leadership returns to a restarted node within seconds
# instead of up to Kafka's 300 s); and, as Kafka's sample config/server.properties, group.initial.rebalance.delay.ms
# 0. TIDELINE_NODE_PROPERTIES settings come after them and win.
#
# Environment (defaults in brackets):
#   TIDELINE_CLUSTER_DIR [<repo>/data/cluster]   TIDELINE_KAFKA_PORT_BASE [9091] (Kafka's protocol)
#   TIDELINE_CLIENT_PORT_BASE [9391] (the gRPC API)   TIDELINE_QUORUM_PORT_BASE [9191]   TIDELINE_METRICS_PORT_BASE [9291]
#   TIDELINE_START_TIMEOUT_S [120]   TIDELINE_STOP_TIMEOUT_S [60]
#   JAVA_OPTS: extra JVM options of each node (e.g. -Xmx256m); TIDELINE_CLASSPATH: run from this class path
#   instead of the built jars (see scripts/tideline).
#   TIDELINE_NODE_PROPERTIES: extra key=value settings for every node, separated by spaces or newlines (e.g.
#   "log.retention.check.interval.ms=10000 num.io.threads=4"); written into the configs of a new cluster.
#   JMX_PORT: as in Kafka's scripts, turns on remote JMX (jconsole, the Prometheus JMX exporter): node i listens
#   on 127.0.0.1:(JMX_PORT+i-1), RMI on the same port, without authentication or TLS (this machine only).
#   Unset [default]: no remote JMX.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${TIDELINE_CLUSTER_DIR:-$ROOT/data/cluster}"
CLIENT_PORT_BASE="${TIDELINE_CLIENT_PORT_BASE:-9391}"
QUORUM_PORT_BASE="${TIDELINE_QUORUM_PORT_BASE:-9191}"
METRICS_PORT_BASE="${TIDELINE_METRICS_PORT_BASE:-9291}"
KAFKA_PORT_BASE="${TIDELINE_KAFKA_PORT_BASE:-9091}"
START_TIMEOUT_S="${TIDELINE_START_TIMEOUT_S:-120}"
STOP_TIMEOUT_S="${TIDELINE_STOP_TIMEOUT_S:-60}"
# Below STOP_TIMEOUT_S: the last nodes of a cluster going down have no quorum left to confirm their
# controlled shutdown, so they wait this long and then stop anyway (logs still closed cleanly).
CONTROLLED_SHUTDOWN_TIMEOUT_MS=10000

# The usage line: on stdout with exit 0 when asked for (help), on stderr with exit 2 after a bad command line.
USAGE="usage: cluster.sh start [N] | stop [NODE] | status | kill NODE | restart NODE | pause NODE | resume NODE \
| logs NODE [-f] | help"
usage() {
    local code="${1:-2}"
    if ((code == 0)); then
        echo "$USAGE"
    else
        echo "$USAGE" >&2
    fi
    exit "$code"
}

client_port() { echo $((CLIENT_PORT_BASE + $1)); }
quorum_port() { echo $((QUORUM_PORT_BASE + $1)); }
metrics_port() { echo $((METRICS_PORT_BASE + $1)); }
kafka_port() { echo $((KAFKA_PORT_BASE + $1)); }

# Node ids of the cluster in $DIR (from its generated configs), ascending.
node_ids() {
    local f
    for f in "$DIR"/node-*.properties; do
        [[ -f "$f" ]] || continue
        f="${f##*/node-}"
        echo "${f%.properties}"
    done | sort -n
}

# A config key from node i's properties file.
prop() {
    sed -n "s/^$2=//p" "$DIR/node-$1.properties" | tail -n 1
}

# The pid of node i if it is running and is the process this script started for it (not a reused pid).
live_pid() {
    local pidfile="$DIR/node-$1.pid" pid
    [[ -f "$pidfile" ]] || return 1
    pid="$(cat "$pidfile")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # /proc holds the whole command line (ps may cut a long class path short).
    local cmdline
    cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || ps -o args= -p "$pid" 2>/dev/null || true)"
    [[ "$cmdline" == *"--config $DIR/node-$1.properties"* ]] || return 1
    echo "$pid"
}

# The process state letter of /proc/PID/stat (R, S, D, T stopped, Z zombie, ...); nothing if there is no such
# process. The command name in parentheses may hold spaces and parentheses itself, so cut after the last ')'.
proc_state() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    stat="${stat##*) }"
    echo "${stat%% *}"
}

# Whether the process has not exited yet. A node that exited but that its parent (init: the shell that started
# it is gone) has not reaped yet is a zombie: it answers kill -0 but is dead.
is_alive() {
    kill -0 "$1" 2>/dev/null || return 1
    [[ "$(proc_state "$1")" != Z ]]
}

# After the given processes exited: waits a little for init to reap them (here it took about 1.6 s), so that
# their pids are gone when we say so; an init that never reaps costs this bound, not the stop timeout.
await_reaped() {
    local pid deadline=$((SECONDS + 5))
    for pid in "$@"; do
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
            sleep 0.1
        done
    done
}

# NODE as given on the command line: a node id of the cluster in $DIR, or one line and exit 2.
check_node() {
    local node="$1" ids
    ids="$(node_ids | tr '\n' ' ')"
    if [[ -z "$ids" ]]; then
        echo "cluster.sh: no cluster in $DIR, so no node '$node' (start one with: cluster.sh start [N])" >&2
        exit 2
    fi
    if ! [[ "$node" =~ ^[1-9][0-9]*$ && -f "$DIR/node-$node.properties" ]]; then
        echo "cluster.sh: NODE must be a node of the cluster in $DIR (${ids% }), got '$node'" >&2
        exit 2
    fi
}

# The pid of node i (see live_pid), or one line and exit 1: for the commands that act on a running node.
running_pid() {
    local pid
    if ! pid="$(live_pid "$1")"; then
        echo "cluster.sh: node $1 is not running" >&2
        exit 1
    fi
    echo "$pid"
}

write_config() {
    local i="$1" n="$2" voters="" j
    for ((j = 1; j <= n; j++)); do
        voters+="${voters:+,}$j@127.0.0.1:$(quorum_port "$j")"
    done
    # The same keys a docker-compose file or a hand-written node.properties uses (see README).
    cat > "$DIR/node-$i.properties" <<EOF
# Generated by scripts/cluster.sh for node $i of $n.
node.id=$i
process.roles=broker,controller
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(client_port "$i")
advertised.listeners=PLAINTEXT://127.0.0.1:$(client_port "$i")
# Kafka's binary protocol, for Apache Kafka's own clients and tools.
kafka.listeners=PLAINTEXT://127.0.0.1:$(kafka_port "$i")
log.dirs=$DIR/node-$i/logs
metadata.log.dir=$DIR/node-$i/metadata
controlled.shutdown.timeout.ms=$CONTROLLED_SHUTDOWN_TIMEOUT_MS
# Prometheus text at http://127.0.0.1:<port>/metrics, and /health.
metrics.http.host=127.0.0.1
metrics.http.port=$(metrics_port "$i")
# Faster than Kafka's 2 s so that a local cluster is unfenced within a second of registering.
broker.heartbeat.interval.ms=500
# Kafka's 300 s would leave a restarted node without leaderships for up to five minutes; here a restart's
# effect shows within seconds (docs/node.md, automatic leader balancing).
leader.imbalance.check.interval.seconds=10
# As Kafka's sample config/server.properties: a new consumer group's first rebalance does not wait 3 s for
# more members (the key's default stays Kafka's 3000; docs/kafka-protocol.md, Membership rules).
group.initial.rebalance.delay.ms=0
EOF
    local extra
    for extra in ${TIDELINE_NODE_PROPERTIES:-}; do
        [[ "$extra" == *=* ]] || { echo "cluster.sh: TIDELINE_NODE_PROPERTIES: '$extra' is not key=value" >&2; exit 2; }
        echo "$extra" >> "$DIR/node-$i.properties"
    done
}

# Kafka's remote JMX options (kafka-run-class.sh) for node $1 into NODE_JMX_OPTS when JMX_PORT is set (empty
# otherwise, ending in a space when set); the RMI port is the JMX port, so one port per node is all a firewall or
# a test needs to know.
set_jmx_opts() {
    NODE_JMX_OPTS=""
    [[ -n "${JMX_PORT:-}" ]] || return 0
    [[ "$JMX_PORT" =~ ^[0-9]+$ ]] && (( JMX_PORT >= 1 && JMX_PORT + $1 - 1 <= 65535 )) \
        || { echo "cluster.sh: JMX_PORT '$JMX_PORT' is not a port (1-65535) for node $1" >&2; exit 2; }
    local port=$((JMX_PORT + $1 - 1))
    NODE_JMX_OPTS="-Dcom.sun.management.jmxremote -Dcom.sun.management.jmxremote.port=$port \
-Dcom.sun.management.jmxremote.rmi.port=$port -Dcom.sun.management.jmxremote.host=127.0.0.1 \
-Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false \
-Djava.rmi.server.hostname=127.0.0.1 "
}

start_node() {
    local i="$1" log="$DIR/node-$1.log"
    [[ -f "$log" ]] && mv -f "$log" "$log.prev"
    mkdir -p "$DIR/node-$i"
    # exec in scripts/tideline makes $! the JVM's pid. stdin and every output go away from this shell so that
    # a caller reading our output is not held open by the nodes.
    set_jmx_opts "$i"
    JAVA_OPTS="$NODE_JMX_OPTS${JAVA_OPTS:-}" \
        nohup "$ROOT/scripts/tideline" server --config "$DIR/node-$i.properties" < /dev/null > "$log" 2>&1 &
    echo $! > "$DIR/node-$i.pid"
    echo "node $i: started (pid $!, kafka 127.0.0.1:$(kafka_port "$i"), grpc 127.0.0.1:$(client_port "$i"), quorum 127.0.0.1:$(quorum_port "$i"), metrics http://127.0.0.1:$(metrics_port "$i")/metrics, log $log)"
}

# "is serving" is logged only once the controller has unfenced the broker, so it proves the node takes
# requests, which a TCP connect (open since before registration) would not.
is_serving() {
    grep -q "Node $1 is serving" "$DIR/node-$1.log" 2>/dev/null
}

# Both bootstrap addresses, Kafka's first: it is the one Kafka's tools and clients take.
bootstrap_servers() {
    echo "Kafka bootstrap server 127.0.0.1:$(kafka_port 1); gRPC (tideline CLI) bootstrap server 127.0.0.1:$(client_port 1)"
}

cmd_start() {
    local n="${1:-3}" existing i pid started=()
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "cluster.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
    mkdir -p "$DIR"
    existing="$(node_ids | wc -l)"
    if ((existing > 0 && existing != n)); then
        echo "cluster.sh: $DIR holds a cluster of $existing nodes; run 'cluster.sh start $existing', or stop it and remove $DIR" >&2
        exit 2
    fi
    "$ROOT/scripts/tideline" build
    for ((i = 1; i <= n; i++)); do
        if pid="$(live_pid "$i")"; then
            echo "node $i: already running (pid $pid)"
            continue
        fi
        [[ -f "$DIR/node-$i.properties" ]] || write_config "$i" "$n"
        start_node "$i"
        started+=("$i")
    done
    if ((${#started[@]} == 0)); then
        echo "cluster already running ($n nodes); $(bootstrap_servers)"
        return 0
    fi
    if ! wait_serving "${started[@]}"; then
        cmd_stop >&2
        exit 1
    fi
    echo "cluster of $n nodes serving; $(bootstrap_servers)"
}

# Waits until each of the given (just started) nodes serves, at most START_TIMEOUT_S; on a node that exits or
# a timeout it says why on stderr and returns 1 (the caller decides what to stop). The nodes wait for each other
# (registration needs a quorum leader), so they are waited for together.
wait_serving() {
    local i pid waiting deadline=$((SECONDS + START_TIMEOUT_S))
    while :; do
        waiting=()
        for i in "$@"; do
            is_serving "$i" && continue
            # The pid this start wrote, alive or not: live_pid's command-line check would call a node gone whose
            # shell has forked but not yet exec'ed the JVM (a loaded machine takes a while), and no other process
            # can have taken the pid of one this start has just forked.
            pid="$(cat "$DIR/node-$i.pid" 2>/dev/null || true)"
            if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! is_alive "$pid"; then
                echo "cluster.sh: node $i exited during start-up; the end of $DIR/node-$i.log:" >&2
                tail -n 20 "$DIR/node-$i.log" >&2
                return 1
            fi
            waiting+=("$i")
        done
        ((${#waiting[@]} == 0)) && return 0
        if ((SECONDS >= deadline)); then
            echo "cluster.sh: nodes ${waiting[*]} not serving after ${START_TIMEOUT_S}s; see $DIR/node-*.log" >&2
            return 1
        fi
        sleep 0.5
    done
}

cmd_stop() {
    # shellcheck disable=SC2046 # one id per word
    stop_nodes $(node_ids)
}

# SIGTERM to each given node that runs, then waits for them (SIGKILL after STOP_TIMEOUT_S) and removes their
# pid files; says "cluster not running" when none of them ran.
stop_nodes() {
    local i pid pids=() ids=()
    for i in "$@"; do
        if pid="$(live_pid "$i")"; then
            kill -TERM "$pid" 2>/dev/null || true
            # A paused node would hold the SIGTERM until resumed (and be killed at the bound): let it go on.
            kill -CONT "$pid" 2>/dev/null || true
            pids+=("$pid")
            ids+=("$i")
            echo "node $i: stopping (pid $pid)"
        else
            echo "node $i: not running"
        fi
    done
    # All at once: each node's controlled shutdown is confirmed while the quorum still stands.
    local deadline=$((SECONDS + STOP_TIMEOUT_S)) alive
    while :; do
        alive=0
        for pid in "${pids[@]}"; do
            is_alive "$pid" && alive=1
        done
        ((alive == 0 || SECONDS >= deadline)) && break
        sleep 0.2
    done
    local idx
    for idx in "${!pids[@]}"; do
        if is_alive "${pids[$idx]}"; then
            echo "node ${ids[$idx]}: still running after ${STOP_TIMEOUT_S}s, killing (pid ${pids[$idx]})"
            kill -KILL "${pids[$idx]}" 2>/dev/null || true
        else
            echo "node ${ids[$idx]}: stopped"
        fi
    done
    ((${#pids[@]} == 0)) || await_reaped "${pids[@]}"
    for i in "$@"; do
        live_pid "$i" > /dev/null || rm -f "$DIR/node-$i.pid"
    done
    ((${#pids[@]} > 0)) || echo "cluster not running"
}

cmd_stop_node() {
    local i="$1"
    check_node "$i"
    if ! live_pid "$i" > /dev/null; then
        # Stopping what is stopped is done (as for the whole cluster); a stale pid file goes.
        rm -f "$DIR/node-$i.pid"
        echo "node $i: not running"
        return 0
    fi
    stop_nodes "$i"
}

cmd_kill() {
    local i="$1" pid deadline
    check_node "$i"
    pid="$(running_pid "$i")" || exit 1
    kill -KILL "$pid" 2>/dev/null || true
    # SIGKILL is delivered at once, also to a paused process; the wait is for the exit to show in /proc.
    deadline=$((SECONDS + STOP_TIMEOUT_S))
    while is_alive "$pid" && ((SECONDS < deadline)); do
        sleep 0.1
    done
    await_reaped "$pid"
    rm -f "$DIR/node-$i.pid"
    echo "node $i: killed (pid $pid); its next start recovers its logs"
}

cmd_restart() {
    local i="$1"
    check_node "$i"
    "$ROOT/scripts/tideline" build
    if live_pid "$i" > /dev/null; then
        stop_nodes "$i"
    else
        rm -f "$DIR/node-$i.pid"
        echo "node $i: not running"
    fi
    start_node "$i"
    if ! wait_serving "$i"; then
        # Only this node: the others run on as they were.
        stop_nodes "$i" >&2
        exit 1
    fi
    echo "node $i: serving"
}

cmd_pause() {
    local i="$1" pid deadline
    check_node "$i"
    pid="$(running_pid "$i")" || exit 1
    if [[ "$(proc_state "$pid")" == T ]]; then
        echo "node $i: already paused (pid $pid)"
        return 0
    fi
    kill -STOP "$pid"
    # The stop is asynchronous; wait for it so that a status right after shows it.
    deadline=$((SECONDS + 10))
    while [[ "$(proc_state "$pid")" != T ]] && ((SECONDS < deadline)); do
        sleep 0.05
    done
    echo "node $i: paused (pid $pid); 'cluster.sh resume $i' lets it go on"
}

cmd_resume() {
    local i="$1" pid
    check_node "$i"
    pid="$(running_pid "$i")" || exit 1
    if [[ "$(proc_state "$pid")" != T ]]; then
        echo "node $i: not paused (pid $pid)"
        return 0
    fi
    kill -CONT "$pid"
    echo "node $i: resumed (pid $pid)"
}

cmd_logs() {
    local i="$1" follow="$2" log="$DIR/node-$1.log"
    check_node "$i"
    if [[ ! -f "$log" ]]; then
        echo "cluster.sh: node $i has no log yet ($log)" >&2
        exit 1
    fi
    if [[ -n "$follow" ]]; then
        exec tail -n +1 -f "$log"
    fi
    cat "$log"
}

# The value of "Key: value" in a tab-separated line of `admin cluster --describe`.
field() {
    local line="$1" key="$2" tab=$'\t'
    line="${line#*"$key: "}"
    echo "${line%%"$tab"*}"
}

# The cluster's own view (`admin cluster --describe` through a serving node): the controller as the metadata
# quorum's leader says, its metadata offsets, each broker's state, the fenced brokers. Always one line at least,
# also when the quorum does not answer (no majority running): then the answering broker's view follows it.
cluster_view() {
    local bootstrap="$1" out err code=0 first line b state brokers="" fenced=""
    err="$(mktemp)"
    out="$("$ROOT/scripts/tideline" admin --bootstrap-server "$bootstrap" cluster --describe 2> "$err")" || code=$?
    first="$(head -n 1 <<< "$out")"
    if [[ "$first" != ClusterId:* ]]; then
        echo "cluster view: unavailable ($(tail -n 1 "$err"))"
        rm -f "$err"
        return 0
    fi
    if ((code != 0)); then
        echo "cluster view: the metadata quorum did not answer, so no controller; broker view only ($(tail -n 1 "$err" | sed 's/^admin: //'))"
    else
        echo "controller: node $(field "$first" Controller) (the metadata quorum leader, term $(field "$first" ControllerTerm))"
        echo "metadata offset: $(field "$first" CommittedOffset) committed, $(field "$first" AppliedOffset) applied by the controller"
    fi
    rm -f "$err"
    while IFS= read -r line; do
        [[ "$line" == $'\t'Broker:* ]] || continue
        b="$(field "$line" Broker)"
        state="$(field "$line" State)"
        brokers+="${brokers:+, }$b $state"
        [[ "$(field "$line" MetadataOffset)" == - ]] || brokers+=" (applied $(field "$line" MetadataOffset))"
        [[ "$state" == FENCED ]] && fenced+="${fenced:+ }$b"
    done <<< "$out"
    echo "brokers: ${brokers:-none registered}"
    echo "fenced brokers: ${fenced:-none}"
}

has_admin_cli() {
    local commands
    commands="$("$ROOT/scripts/tideline" help 2>/dev/null || true)"
    [[ "$commands" == *$'\n  admin '* ]]
}

# host:port of node i's listener KEY, or "-" for a cluster generated before the Kafka listener existed.
listener_address() {
    local address
    address="$(prop "$1" "$2" | sed 's#^.*://##')"
    echo "${address:--}"
}

cmd_status() {
    local i pid serving=() state metrics port
    if [[ -z "$(node_ids)" ]]; then
        echo "no cluster in $DIR (start one with: cluster.sh start [N])"
        return 0
    fi
    local running=0
    printf '%-6s %-9s %-8s %-22s %-22s %-22s %s\n' node state pid kafka grpc quorum metrics
    for i in $(node_ids); do
        if pid="$(live_pid "$i")"; then
            running=$((running + 1))
            if [[ "$(proc_state "$pid")" == T ]]; then
                state=paused
            elif is_serving "$i"; then
                state=serving
                serving+=("$i")
            else
                state=starting
            fi
        else
            pid=-
            state=stopped
        fi
        port="$(prop "$i" metrics.http.port)"
        metrics="${port:+http://$(prop "$i" metrics.http.host):$port/metrics}"
        printf '%-6s %-9s %-8s %-22s %-22s %-22s %s\n' "$i" "$state" "$pid" "$(listener_address "$i" kafka.listeners)" \
            "$(prop "$i" listeners | sed 's#^.*://##')" \
            "$(prop "$i" controller.quorum.voters | tr ',' '\n' | sed -n "s/^$i@//p")" "${metrics:--}"
    done
    if ((running == 0)); then
        echo "cluster not running"
        return 0
    fi
    if ((${#serving[@]} == 0)); then
        echo "cluster view: unavailable (no node serves)"
        return 0
    fi
    # A serving node: a paused one would hold the admin CLI until its timeout.
    # Kafka clients' bootstrap.servers first; absent from a cluster generated before the Kafka listener existed.
    local kafka
    kafka="$(prop "${serving[0]}" kafka.listeners | sed 's#^.*://##')"
    if [[ -n "$kafka" ]]; then
        echo "kafka bootstrap server: $kafka"
    fi
    local bootstrap
    bootstrap="$(prop "${serving[0]}" listeners | sed 's#^.*://##')"
    echo "grpc (tideline CLI) bootstrap server: $bootstrap"
    # The admin CLI reports these from the cluster's metadata once it exists.
    if has_admin_cli; then
        cluster_view "$bootstrap"
        local under
        if under="$("$ROOT/scripts/tideline" admin --bootstrap-server "$bootstrap" topics --describe \
                --under-replicated-partitions)"; then
            if [[ -z "$under" ]]; then
                echo "under-replicated partitions: none"
            else
                echo "under-replicated partitions:"
                echo "$under"
            fi
        else
            echo "under-replicated partitions: unknown (admin CLI failed)"
        fi
    else
        echo "under-replicated partitions: unknown (needs 'scripts/tideline admin', not built in yet)"
    fi
}

main() {
    local command="${1:-}"
    case "$command" in
        start)
            (($# <= 2)) || usage
            cmd_start "${2:-3}"
            ;;
        stop)
            if (($# == 1)); then
                cmd_stop
            else
                (($# == 2)) || usage
                cmd_stop_node "$2"
            fi
            ;;
        kill | restart | pause | resume)
            (($# == 2)) || usage
            "cmd_$command" "$2"
            ;;
        logs)
            (($# == 2)) || { (($# == 3)) && [[ "$3" == -f ]]; } || usage
            cmd_logs "$2" "${3:-}"
            ;;
        status)
            (($# == 1)) || usage
            cmd_status
            ;;
        help | -h | --help)
            (($# == 1)) || usage
            usage 0
            ;;
        *) usage ;;
    esac
}

main "$@"
