#!/usr/bin/env bash
# demo-follower-lag.sh: a follower cut off past retention, and the two ways an operator heals it, narrated
# step by step on a 4-node local cluster that the demo starts and stops itself.
#
#   scripts/demo-follower-lag.sh          (about 2 minutes; exit 0 when the story ends healed)
#
#   1. Two topics, lag-demo and rebuild-demo, RF 3 on nodes 1, 2 and 3, with small segments and a short
#      retention.ms.
#   2. Follower 3 is paused (SIGSTOP) while records are produced, until the leader's retention has deleted
#      past the offset where follower 3 stopped.
#   3. Follower 3 resumes: its fetch is below the leader's log start offset (OFFSET_OUT_OF_RANGE), and under
#      the default replica.fetch.out.of.range.policy=halt it stops as FAILED; both partitions stay
#      under-replicated (docs/behaviours.md, "A follower below the leader's log start offset").
#   4. lag-demo is healed by reassigning its replica from node 3 to node 4 (reassign-partitions --verify shows
#      the progress); rebuild-demo is healed in place by replicas --rebuild on node 3.
#   It ends with no under-replicated partition, and stops the cluster.
#
# The cluster is its own: its directory and every port of its nodes differ from cluster.sh's defaults (Kafka
# 9092-, quorum 9192-, metrics 9292-, gRPC 9392-), so a cluster.sh cluster may run beside it. Before starting
# anything it checks that each of its ports is free, and names the one that is not. Its nodes open no remote JMX
# port (a JMX_PORT in the environment belongs to the cluster.sh cluster beside it). Environment (defaults in brackets):
#   TIDELINE_DEMO_DIR [<repo>/data/demo-follower-lag]      wiped at start (when no demo node runs there)
#   TIDELINE_DEMO_PORT_BASE [9400]    node i serves the gRPC API on BASE+90+i, quorum BASE+190+i, metrics BASE+290+i
#   TIDELINE_DEMO_KAFKA_PORT_BASE [TIDELINE_DEMO_PORT_BASE+390]    node i serves Kafka's protocol on it +i
#   TIDELINE_CLASSPATH, JAVA_OPTS: as for scripts/tideline and scripts/cluster.sh.
# Exit codes: 0 healed, 1 a step did not happen within its bound (the cluster is still stopped), 2 bad usage.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# > 0)); then
    case "$1" in
        help | -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: demo-follower-lag.sh [help]" >&2; exit 2 ;;
    esac
fi

PORT_BASE="${TIDELINE_DEMO_PORT_BASE:-9400}"
export TIDELINE_CLUSTER_DIR="${TIDELINE_DEMO_DIR:-$ROOT/data/demo-follower-lag}"
export TIDELINE_CLIENT_PORT_BASE=$((PORT_BASE + 90))
export TIDELINE_QUORUM_PORT_BASE=$((PORT_BASE + 190))
export TIDELINE_METRICS_PORT_BASE=$((PORT_BASE + 290))
export TIDELINE_KAFKA_PORT_BASE="${TIDELINE_DEMO_KAFKA_PORT_BASE:-$((PORT_BASE + 390))}"
# Kafka's JMX_PORT would give the demo's nodes the remote JMX port of a cluster.sh cluster running beside it.
unset JMX_PORT
# A retention pass every second and a follower out of the ISR after 4 s instead of 30 s, so that the story
# takes a minute; fencing a paused node takes broker.session.timeout.ms as usual.
export TIDELINE_NODE_PROPERTIES="log.retention.check.interval.ms=1000 replica.lag.time.max.ms=4000"
B="127.0.0.1:$((TIDELINE_CLIENT_PORT_BASE + 1))"

# The topics: 64 KiB segments and 6 s retention.ms, so that a few seconds of records roll segments that
# retention then deletes; renamed segments are unlinked after 1 s.
TOPIC_CONFIGS=(--config segment.bytes=65536 --config retention.ms=6000 --config file.delete.delay.ms=1000
    --config min.insync.replicas=2)
LAG_TOPIC=lag-demo
REBUILD_TOPIC=rebuild-demo
NODES=4
PAUSED=3
TARGET=4

CLUSTER="$ROOT/scripts/cluster.sh"
TIDELINE="$ROOT/scripts/tideline"

step() { printf '\n=== %s\n' "$*"; }
say() { printf -- '--- %s\n' "$*"; }
run() { printf '$ %s\n' "${*/#$ROOT\//}"; "$@"; }
fail() { echo "demo-follower-lag: $*" >&2; exit 1; }
admin() { "$TIDELINE" admin --bootstrap-server "$B" "$@"; }

started=""
cleanup() {
    local code=$?
    if [[ -n "$started" ]]; then
        step "Stopping the demo cluster"
        "$CLUSTER" stop || code=1
    fi
    exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# `cluster.sh status` of the demo's directory: a demo that is already running is left alone.
if [[ -d "$TIDELINE_CLUSTER_DIR" ]] && "$CLUSTER" status 2>/dev/null | grep -qE '^node [0-9]+: (serving|paused|starting)'; then
    fail "a demo cluster already runs in $TIDELINE_CLUSTER_DIR; stop it with: TIDELINE_CLUSTER_DIR=$TIDELINE_CLUSTER_DIR $CLUSTER stop"
fi
rm -rf "$TIDELINE_CLUSTER_DIR"

# Every port of the demo's nodes, checked before anything starts: a node that cannot bind one would only say so
# in its log, after the others started. A port counts as taken when a connect to it on 127.0.0.1 succeeds.
check_ports_free() {
    local i name base taken=()
    for ((i = 1; i <= NODES; i++)); do
        for name in KAFKA CLIENT QUORUM METRICS; do
            base="TIDELINE_${name}_PORT_BASE"
            if (: <> "/dev/tcp/127.0.0.1/$((${!base} + i))") 2>/dev/null; then
                taken+=("127.0.0.1:$((${!base} + i)) (node $i's $(port_role "$name"))")
            fi
        done
    done
    ((${#taken[@]} == 0)) || fail "in use already: ${taken[*]}; choose other ports with TIDELINE_DEMO_PORT_BASE and TIDELINE_DEMO_KAFKA_PORT_BASE"
}
port_role() {
    case "$1" in
        KAFKA) echo "Kafka listener" ;;
        CLIENT) echo "gRPC API" ;;
        QUORUM) echo "metadata quorum" ;;
        METRICS) echo "metrics endpoint" ;;
    esac
}

# Polls "$@" every second until it succeeds, for at most $1 seconds.
wait_for() {
    local bound="$1" what="$2"
    shift 2
    local deadline=$((SECONDS + bound))
    until "$@"; do
        ((SECONDS < deadline)) || fail "$what did not happen within ${bound} s"
        sleep 1
    done
}

# The leader's log start offset of partition 0, from node 1's log dirs (asking node 1 only: node 3 is paused).
log_start_offset() {
    admin log-dirs --describe --broker-list 1 --topic-list "$1" --output json 2>/dev/null \
        | grep -o '"partition":"'"$1"'-0"[^}]*"logStartOffset":[0-9]*' | grep -o '[0-9]*$'
}

# The state of broker $2's replica of $1-0, from replicas --describe (IN_SYNC, LAGGING, FAILED, ...).
replica_state() {
    admin replicas --describe --topic "$1" --partition 0 2>/dev/null \
        | sed -n "s/^[[:space:]]*Replica: $2[[:space:]]*State: \([A-Z_]*\).*/\1/p"
}
replica_is() { [[ "$(replica_state "$1" "$2")" == "$3" ]]; }
all_in_sync() {
    local broker
    for broker in "${@:2}"; do
        replica_is "$1" "$broker" IN_SYNC || return 1
    done
}

# A gauge of node $1's /metrics, read over bash's /dev/tcp (no curl needed).
metric() {
    local port=$((TIDELINE_METRICS_PORT_BASE + $1)) line
    exec 5<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&5
    while IFS= read -r line <&5; do
        line="${line%$'\r'}"
        # Case-insensitive: the JMX-style name and the lowercase one of Kafka dashboards name one gauge (docs/metrics.md).
        if [[ "${line,,}" == "${2,,} "* ]]; then
            line="${line##* }"
            echo "${line%.0}"   # the exporter prints gauges as doubles
            break
        fi
    done
    exec 5<&-
}
under_replicated_on_node_1() { [[ "$(metric 1 kafka_server_replicamanager_underreplicatedpartitions)" == "$1" ]]; }

# Records of 200 bytes at 2000 a second, acks=all: $1 records to topic $2.
produce() {
    "$TIDELINE" perf produce --bootstrap-server "$B" --topic "$2" --num-records "$1" --record-size 200 \
        --throughput 2000 --command-property acks=all linger.ms=5 | tail -n 1
}

step "1. A 4-node cluster, and two topics with RF 3 on nodes 1, 2 and 3"
check_ports_free
mkdir -p "$TIDELINE_CLUSTER_DIR"
printf '$ %s\n' "scripts/cluster.sh start $NODES"
started=1
# cluster.sh reports each node as it launches it; its report is shown once every node serves, so that no node is
# reported started that then failed. When one fails, what cluster.sh says about it (on stderr) is shown instead.
if ! start_report="$("$CLUSTER" start "$NODES" 2> "$TIDELINE_CLUSTER_DIR/start.err")"; then
    cat "$TIDELINE_CLUSTER_DIR/start.err" >&2
    fail "the demo cluster did not start (above)"
fi
printf '%s\n' "$start_report"
for topic in "$LAG_TOPIC" "$REBUILD_TOPIC"; do
    run "$TIDELINE" admin --bootstrap-server "$B" topics --create --topic "$topic" --replica-assignment 1:2:3 \
        "${TOPIC_CONFIGS[@]}"
    produce 1000 "$topic"
done
wait_for 60 "every replica in sync" all_in_sync "$LAG_TOPIC" 1 2 3
wait_for 60 "every replica in sync" all_in_sync "$REBUILD_TOPIC" 1 2 3
run "$TIDELINE" admin --bootstrap-server "$B" replicas --describe --topic "$LAG_TOPIC"
say "what this shows: all three replicas of $LAG_TOPIC-0 are IN_SYNC, their logs end at the same offset, and the"
say "leader (node 1) counts all three in the ISR."

step "2. Follower $PAUSED paused (SIGSTOP) while records keep coming, until retention deletes past it"
run "$CLUSTER" pause "$PAUSED"
stopped_at=1000
say "follower $PAUSED stopped with both logs ending at offset $stopped_at; producing to both topics"
say "each replica runs its own retention: the leader and follower 2 delete their own old segments as retention.ms"
say "(6 s) expires them, while the paused follower $PAUSED deletes nothing and fetches nothing; so the leader's log"
say "start offset moves past offset $stopped_at, where follower $PAUSED stopped."
past_retention() {
    local lso_lag lso_rebuild
    produce 4000 "$LAG_TOPIC" >/dev/null
    produce 4000 "$REBUILD_TOPIC" >/dev/null
    lso_lag="$(log_start_offset "$LAG_TOPIC")"
    lso_rebuild="$(log_start_offset "$REBUILD_TOPIC")"
    say "leader's log start offset: $LAG_TOPIC-0 ${lso_lag:-?}, $REBUILD_TOPIC-0 ${lso_rebuild:-?} (follower $PAUSED is at $stopped_at)"
    ((${lso_lag:-0} > stopped_at && ${lso_rebuild:-0} > stopped_at))
}
wait_for 120 "retention deleting past offset $stopped_at" past_retention
say "why the leader still holds what it holds (its oldest segments):"
run "$TIDELINE" admin --bootstrap-server "$B" explain-retention --topic "$LAG_TOPIC" --partition 0 --broker 1 | head -n 6
say "what this shows: the leader's own retention pass, segment by segment: which rule keeps each segment, and"
say "that the segments follower $PAUSED would need next are gone from the leader."

step "3. Follower $PAUSED resumes: its fetch is below the leader's log start offset, and it stops as FAILED"
run "$CLUSTER" resume "$PAUSED"
wait_for 90 "replica $PAUSED of $LAG_TOPIC-0 FAILED" replica_is "$LAG_TOPIC" "$PAUSED" FAILED
wait_for 30 "replica $PAUSED of $REBUILD_TOPIC-0 FAILED" replica_is "$REBUILD_TOPIC" "$PAUSED" FAILED
run "$TIDELINE" admin --bootstrap-server "$B" replicas --describe --topic "$LAG_TOPIC"
say "what this shows: follower $PAUSED fetched from its log end offset, which is below the leader's log start offset,"
say "and the leader answered OFFSET_OUT_OF_RANGE (the offset is no longer in the leader's log). Under"
say "replica.fetch.out.of.range.policy=halt the follower does not truncate its log on its own: its replica stops as"
say "FAILED with the two offsets as its reason, and the ISR history records the change with the reason OUT_OF_RANGE,"
say "the controller's name for an OFFSET_OUT_OF_RANGE fetch."
run "$TIDELINE" admin --bootstrap-server "$B" topics --describe --under-replicated-partitions
wait_for 30 "UnderReplicatedPartitions 2 on node 1" under_replicated_on_node_1 2
say "node 1's /metrics: UnderReplicatedPartitions $(metric 1 kafka_server_replicamanager_underreplicatedpartitions)"
say "what this shows: both partitions are under-replicated, with the ISR 1,2; min.insync.replicas=2 still holds, so"
say "producers with acks=all go on, but one more failure would stop them. A FAILED replica does not heal itself."

step "4a. Heal $LAG_TOPIC-0 by moving its replica from node $PAUSED to node $TARGET"
plan="$TIDELINE_CLUSTER_DIR/reassignment.json"
echo '{"version":1,"partitions":[{"topic":"'"$LAG_TOPIC"'","partition":0,"replicas":[1,2,'"$TARGET"']}]}' > "$plan"
run cat "$plan"
say "retention raised to 10 minutes first, so that the log the new replica copies stays put while it copies"
run "$TIDELINE" admin --bootstrap-server "$B" configs --alter --entity-type topics --entity-name "$LAG_TOPIC" \
    --add-config retention.ms=600000
produce 3000 "$LAG_TOPIC"
say "the move, with a replication throttle of 100 kB/s, so that --verify has progress to show: the new replica on"
say "node $TARGET copies the leader's log from its log start offset, then joins the ISR, and node $PAUSED's replica goes."
run "$TIDELINE" admin --bootstrap-server "$B" reassign-partitions --execute --reassignment-json-file "$plan" \
    --throttle 100000
reassignment_done() {
    local out
    out="$(admin reassign-partitions --verify --reassignment-json-file "$plan")" || return 1
    printf '%s\n' "$out"
    [[ "$out" == *"Reassignment of partition $LAG_TOPIC-0 is completed."* ]] || { sleep 1; return 1; }
}
wait_for 90 "the reassignment of $LAG_TOPIC-0" reassignment_done
run "$TIDELINE" admin --bootstrap-server "$B" replicas --describe --topic "$LAG_TOPIC"
say "what this shows: $LAG_TOPIC-0's replicas are now 1, 2 and $TARGET, all IN_SYNC; node $PAUSED holds no replica of it."

step "4b. Heal $REBUILD_TOPIC-0 in place: rebuild replica $PAUSED from the leader's log start offset"
say "the rebuild drops replica $PAUSED's log and fetches the leader's log again from its log start offset, on node $PAUSED."
run "$TIDELINE" admin --bootstrap-server "$B" replicas --rebuild --topic "$REBUILD_TOPIC" --partition 0 --broker "$PAUSED"
wait_for 90 "replica $PAUSED of $REBUILD_TOPIC-0 back in sync" replica_is "$REBUILD_TOPIC" "$PAUSED" IN_SYNC
run "$TIDELINE" admin --bootstrap-server "$B" replicas --describe --topic "$REBUILD_TOPIC"
say "what this shows: replica $PAUSED of $REBUILD_TOPIC-0 is IN_SYNC again, on the node where it failed."

step "Healed: no under-replicated partition"
wait_for 30 "UnderReplicatedPartitions 0 on node 1" under_replicated_on_node_1 0
left="$(admin topics --describe --under-replicated-partitions)"
[[ -z "$left" ]] || fail "still under-replicated: $left"
for ((node = 1; node <= NODES; node++)); do
    say "node $node's /metrics: UnderReplicatedPartitions $(metric "$node" kafka_server_replicamanager_underreplicatedpartitions)"
done
say "what this shows: every partition has its full ISR again: one healed by moving the replica, one in place."
