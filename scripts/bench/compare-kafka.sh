#!/usr/bin/env bash
# shellcheck disable=SC2317 # cleanup (the EXIT trap) and the parse_* functions (step's argument) are called indirectly
# compare-kafka.sh: the same produce, consume and end-to-end workloads against Apache Kafka 4.4.0 (its own
# perf tools), against Tideline (tideline perf, over gRPC) and against Tideline's Kafka listener (Kafka's own perf
# tools again: the client is the same as on Kafka's side, so that column compares the brokers alone), on this
# machine, in one run; prints one markdown table with the three systems side by side.
#
#   scripts/bench/compare-kafka.sh [--quick] [--runs N] [--records N] [--e2e-records N] [--keep-data]
#   scripts/bench/compare-kafka.sh --table RUN-DIR     (the table again, from RUN-DIR/results.tsv)
#
# Each run starts a fresh 3-node Kafka cluster (KRaft, every node broker + controller), runs the workloads
# with Kafka's ProducerPerformance, ConsumerPerformance and EndToEndLatency, and stops it; then it starts a
# fresh 3-node Tideline cluster (scripts/cluster.sh) and runs `tideline perf` with the same parameters; then
# another fresh Tideline cluster, and Kafka's tools with the same parameters against its Kafka listener.
# Workloads, all RF 3, min.insync.replicas=2, acks=all, 1 KiB records:
#   produce-1p, produce-3p        --num-records N at an unbounded rate (--throughput -1), 1 and 3 partitions
#   produce-1p-half, -3p-half     N/4 records at half the rate Kafka reached in the same run (latency); also
#                                 summarised without the first 5 s of records (--warmup-records, both tools)
#   consume-1p, consume-3p        the first N records of those topics
#   e2e                           --e2e-records records, one at a time (1 partition)
# For each workload it records every broker's RSS (peak and end, /proc/PID/status) and CPU seconds (utime +
# stime, /proc/PID/stat). The table gives the median, min and max over the runs of each of the three and the
# ratios of the medians to Kafka's: Tideline's Kafka listener/Kafka and tideline perf/Kafka. Defaults: N=500000, e2e 10000 records, 3 runs (25-35 minutes expected
# on 2 quiet cores with the third system); --quick: N=50000, e2e 1000 (18-25 minutes on 2 cores busy with other
# builds; about half of it is JVM starts).
#
# Everything goes to 127.0.0.1. Kafka listens on 127.0.0.1:(KAFKA_PORT_BASE+i) and its controllers on
# (KAFKA_CONTROLLER_PORT_BASE+i); Tideline uses TIDELINE_CLIENT_PORT_BASE / TIDELINE_QUORUM_PORT_BASE /
# TIDELINE_METRICS_PORT_BASE / TIDELINE_KAFKA_PORT_BASE (its Kafka listener) (defaults below, away from cluster.sh's defaults so that a cluster someone runs
# there is left alone). The Kafka jars are fetched once with Maven into scripts/bench/kafka-compare/ (git
# ignores it); each run's data, logs and tool outputs go under scripts/bench/kafka-compare/runs/<time>/, the
# data is deleted at the end (unless --keep-data), the logs, tool outputs and report.md stay. On exit (also on
# Ctrl-C or an error) the EXIT trap stops exactly the processes this script started, by PID.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HOME_DIR="$ROOT/scripts/bench/kafka-compare"
KAFKA_VERSION=4.4.0
# The log4j2 release Kafka 4.4.0's own modules depend on (through kafka-server). The distribution ships the
# log4j-slf4j-impl binding of that release (slf4j 1.7.36: Kafka keeps slf4j 1.x until 5.0) and
# log4j-1.2-api; both must match log4j-core.
LOG4J_VERSION=2.25.5
LIB_DIR="$HOME_DIR/lib-$KAFKA_VERSION"

KAFKA_PORT_BASE="${KAFKA_PORT_BASE:-19091}"
KAFKA_CONTROLLER_PORT_BASE="${KAFKA_CONTROLLER_PORT_BASE:-19191}"
export TIDELINE_CLIENT_PORT_BASE="${TIDELINE_CLIENT_PORT_BASE:-29091}"
export TIDELINE_QUORUM_PORT_BASE="${TIDELINE_QUORUM_PORT_BASE:-29191}"
export TIDELINE_METRICS_PORT_BASE="${TIDELINE_METRICS_PORT_BASE:-29291}"
export TIDELINE_KAFKA_PORT_BASE="${TIDELINE_KAFKA_PORT_BASE:-29391}"
# The heap of every broker, both systems (scripts/tideline starts Tideline nodes with -Xmx512m).
BROKER_HEAP=-Xmx512m
# What Kafka's kafka-run-class.sh adds to every Kafka JVM, brokers and tools alike.
KAFKA_JVM_PERFORMANCE_OPTS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"
# kafka-producer-perf-test.sh and kafka-consumer-perf-test.sh run with -Xmx512M, kafka-e2e-latency.sh with
# kafka-run-class.sh's -Xmx256M; tideline perf runs with -Xmx512m.
KAFKA_PERF_HEAP=-Xmx512M
KAFKA_E2E_HEAP=-Xmx256M
NODES=3
RECORD_SIZE=1024

RUNS=3
RECORDS=500000
E2E_RECORDS=10000
QUICK=0
KEEP_DATA=0
TABLE_ONLY=""

usage() {
    sed -n '3,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

positive() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "compare-kafka.sh: $1 must be a positive integer, got '$2'" >&2; exit 2; }; }

parse_args() {
    local records="" e2e=""
    while (($# > 0)); do
        case "$1" in
            --quick) QUICK=1 ;;
            --runs) (($# >= 2)) || usage; positive --runs "$2"; RUNS="$2"; shift ;;
            --records) (($# >= 2)) || usage; positive --records "$2"; records="$2"; shift ;;
            --e2e-records) (($# >= 2)) || usage; positive --e2e-records "$2"; e2e="$2"; shift ;;
            --keep-data) KEEP_DATA=1 ;;
            --table) (($# >= 2)) || usage; TABLE_ONLY="$2"; shift ;;
            -h | --help) usage ;;
            *) echo "compare-kafka.sh: unknown option '$1'" >&2; usage ;;
        esac
        shift
    done
    if ((QUICK)); then
        RECORDS=50000
        E2E_RECORDS=1000
    fi
    RECORDS="${records:-$RECORDS}"
    E2E_RECORDS="${e2e:-$E2E_RECORDS}"
    ((RECORDS >= 4)) || { echo "compare-kafka.sh: --records must be at least 4" >&2; exit 2; }
}

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# ---------------------------------------------------------------------------------------------------------
# Processes this script started, each with a string its /proc cmdline must contain before it is signalled,
# so that a PID reused by someone else's process after ours exited is never touched.
TRACKED_PIDS=()
TRACKED_MARKS=()
SAMPLER_PID=""
TIDELINE_DIR=""

track() { TRACKED_PIDS+=("$1"); TRACKED_MARKS+=("$2"); }

ours() { # pid mark
    local cmdline
    kill -0 "$1" 2>/dev/null || return 1
    cmdline="$(tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null)" || return 1
    [[ "$cmdline" == *"$2"* ]]
}

# Stops the tracked processes that are still ours: SIGTERM, then SIGKILL after $1 seconds.
stop_tracked() {
    local grace="$1" i alive deadline
    for i in "${!TRACKED_PIDS[@]}"; do
        if ours "${TRACKED_PIDS[$i]}" "${TRACKED_MARKS[$i]}"; then
            kill -TERM "${TRACKED_PIDS[$i]}" 2> /dev/null || true
        fi
    done
    deadline=$((SECONDS + grace))
    while :; do
        alive=0
        for i in "${!TRACKED_PIDS[@]}"; do
            ours "${TRACKED_PIDS[$i]}" "${TRACKED_MARKS[$i]}" && alive=1
        done
        ((alive == 0 || SECONDS >= deadline)) && break
        sleep 0.2
    done
    for i in "${!TRACKED_PIDS[@]}"; do
        if ours "${TRACKED_PIDS[$i]}" "${TRACKED_MARKS[$i]}"; then
            log "pid ${TRACKED_PIDS[$i]} still running after ${grace}s, killing it"
            kill -KILL "${TRACKED_PIDS[$i]}" 2>/dev/null || true
        fi
    done
    TRACKED_PIDS=()
    TRACKED_MARKS=()
}

stop_sampler() {
    if [[ -n "$SAMPLER_PID" ]]; then
        kill "$SAMPLER_PID" 2>/dev/null || true
        wait "$SAMPLER_PID" 2>/dev/null || true
        SAMPLER_PID=""
    fi
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    stop_sampler
    if [[ -n "$TIDELINE_DIR" && -d "$TIDELINE_DIR" ]]; then
        TIDELINE_CLUSTER_DIR="$TIDELINE_DIR" "$ROOT/scripts/cluster.sh" stop > /dev/null 2>&1 || true
    fi
    stop_tracked 30
    if ((KEEP_DATA == 0)) && [[ -n "${RUN_DIR:-}" ]]; then
        rm -rf "$RUN_DIR"/r*/kafka/node-*/data "$RUN_DIR"/r*/tideline*/node-*/logs "$RUN_DIR"/r*/tideline*/node-*/metadata
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------------
# Kafka's jars: kafka_2.13 (the broker), kafka-tools, kafka-clients and their runtime dependencies, plus the
# log4j2 binding the distribution ships, copied by Maven from a throwaway pom (never installed anywhere).
fetch_kafka() {
    if [[ -f "$LIB_DIR/complete" ]]; then
        return 0
    fi
    log "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central into $LIB_DIR"
    rm -rf "$LIB_DIR"
    mkdir -p "$LIB_DIR"
    cat > "$LIB_DIR/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/bench/compare-kafka.sh to copy Kafka's jars into ./jars; not part of the build. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.tideline.bench</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-clients</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-1.2-api</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    mvn -B -q -f "$LIB_DIR/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
        -DoutputDirectory="$LIB_DIR/jars" >&2
    ls "$LIB_DIR/jars" > "$LIB_DIR/complete"
    log "$(wc -l < "$LIB_DIR/complete") jars in $LIB_DIR/jars"
}

write_log4j_configs() {
    # Brokers: INFO to a file, as the distribution's log4j2.yaml does (minus its stdout copy).
    cat > "$RUN_DIR/log4j2-broker.properties" <<'EOF'
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
EOF
    # Tools: WARN to stderr, as the distribution's tools-log4j2.yaml does.
    cat > "$RUN_DIR/log4j2-tools.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
EOF
}

# Runs a Kafka main class the way kafka-run-class.sh does: the heap, Kafka's JVM options, the tools' log4j2
# configuration, every jar. A script rather than a function, so that timeout(1) can run it.
write_kafka_run() {
    KAFKA_RUN="$RUN_DIR/kafka-run-class"
    cat > "$KAFKA_RUN" <<EOF
#!/usr/bin/env bash
# Generated by scripts/bench/compare-kafka.sh: kafka-run-class HEAP MAIN-CLASS ARGS...
heap="\$1"
shift
exec java \$heap $KAFKA_JVM_PERFORMANCE_OPTS -Dlog4j2.configurationFile="$RUN_DIR/log4j2-tools.properties" -cp "$LIB_DIR/jars/*" "\$@"
EOF
    chmod +x "$KAFKA_RUN"
}

port_in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

check_ports_free() {
    local i port
    for ((i = 1; i <= NODES; i++)); do
        for port in $((KAFKA_PORT_BASE + i)) $((KAFKA_CONTROLLER_PORT_BASE + i)) $((TIDELINE_CLIENT_PORT_BASE + i)) \
            $((TIDELINE_QUORUM_PORT_BASE + i)) $((TIDELINE_METRICS_PORT_BASE + i)) $((TIDELINE_KAFKA_PORT_BASE + i)); do
            if port_in_use "$port"; then
                echo "compare-kafka.sh: 127.0.0.1:$port is in use; set KAFKA_PORT_BASE, KAFKA_CONTROLLER_PORT_BASE or TIDELINE_*_PORT_BASE" >&2
                exit 1
            fi
        done
    done
}

BROKER_PIDS=()
BOOTSTRAP=""
TIDELINE_GRPC_BOOTSTRAP=""

# Each run has its own directories (RUN_N_DIR), so that a start never reads the previous run's logs.
start_kafka() {
    local dir="$RUN_N_DIR/kafka" i voters="" cluster_id pid deadline
    mkdir -p "$dir"
    for ((i = 1; i <= NODES; i++)); do
        voters+="${voters:+,}$i@127.0.0.1:$((KAFKA_CONTROLLER_PORT_BASE + i))"
    done
    cluster_id="$("$KAFKA_RUN" "$KAFKA_E2E_HEAP" kafka.tools.StorageTool random-uuid)"
    for ((i = 1; i <= NODES; i++)); do
        mkdir -p "$dir/node-$i/logs"
        cat > "$dir/node-$i.properties" <<EOF
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$((KAFKA_PORT_BASE + i)),CONTROLLER://127.0.0.1:$((KAFKA_CONTROLLER_PORT_BASE + i))
advertised.listeners=PLAINTEXT://127.0.0.1:$((KAFKA_PORT_BASE + i))
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/node-$i/data
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=2
# As the distribution's config/server.properties: no wait before the first consumer group rebalance.
group.initial.rebalance.delay.ms=0
EOF
    done
    # The three formats at once: each is a JVM start of a few seconds.
    local formats=()
    for ((i = 1; i <= NODES; i++)); do
        "$KAFKA_RUN" "$KAFKA_E2E_HEAP" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/node-$i.properties" \
            > "$dir/node-$i.format.log" 2>&1 &
        formats+=($!)
        track "$!" "$dir/node-$i.properties"
    done
    for i in "${!formats[@]}"; do
        wait "${formats[$i]}" || { echo "compare-kafka.sh: formatting Kafka node $((i + 1)) failed; see $dir/node-$((i + 1)).format.log" >&2; exit 1; }
    done
    BROKER_PIDS=()
    for ((i = 1; i <= NODES; i++)); do
        # shellcheck disable=SC2086
        nohup java $BROKER_HEAP $KAFKA_JVM_PERFORMANCE_OPTS -Dkafka.logs.dir="$dir/node-$i/logs" \
            -Dlog4j2.configurationFile="$RUN_DIR/log4j2-broker.properties" -cp "$LIB_DIR/jars/*" \
            kafka.Kafka "$dir/node-$i.properties" < /dev/null > "$dir/node-$i.out" 2>&1 &
        pid=$!
        track "$pid" "$dir/node-$i.properties"
        BROKER_PIDS+=("$pid")
    done
    deadline=$((SECONDS + 120))
    for ((i = 1; i <= NODES; i++)); do
        until grep -q "Kafka Server started" "$dir/node-$i/logs/server.log" 2> /dev/null; do
            if ! kill -0 "${BROKER_PIDS[$((i - 1))]}" 2> /dev/null || ((SECONDS >= deadline)); then
                echo "compare-kafka.sh: Kafka node $i did not start; see $dir/node-$i.out and $dir/node-$i/logs" >&2
                exit 1
            fi
            sleep 0.5
        done
    done
    BOOTSTRAP="127.0.0.1:$((KAFKA_PORT_BASE + 1))"
    log "Kafka $KAFKA_VERSION: $NODES nodes serving (pids ${BROKER_PIDS[*]}), bootstrap $BOOTSTRAP"
}

stop_kafka() {
    log "stopping Kafka (pids ${BROKER_PIDS[*]})"
    # All nodes at once. The last combined node standing has no quorum left to grant its controlled shutdown
    # and may wait for it indefinitely (seen here: the controller leader, 90 s and counting); its data is
    # thrown away, so it gets 20 s and then SIGKILL.
    stop_tracked 20
    BROKER_PIDS=()
    ((KEEP_DATA)) || rm -rf "$RUN_N_DIR/kafka/node-"*/data
}

# start_tideline SYSTEM: a fresh cluster in RUN_N_DIR/SYSTEM. BOOTSTRAP is its gRPC client listener for
# tideline perf (system tideline), its Kafka listener for Kafka's tools (system tideline-kafka), as `cluster.sh
# status` prints it; TIDELINE_GRPC_BOOTSTRAP is the gRPC one either way (topics are created with Tideline's CLI).
# cluster.sh's configs have group.initial.rebalance.delay.ms=0, as the Kafka nodes' above, so ConsumerPerformance's
# join waits alike on both (docs/performance.md, Joining a group).
start_tideline() {
    local system="$1" i pid
    TIDELINE_DIR="$RUN_N_DIR/$system"
    TIDELINE_CLUSTER_DIR="$TIDELINE_DIR" "$ROOT/scripts/cluster.sh" start "$NODES" > "$RUN_N_DIR/$system-start.log" 2>&1 || {
        cat "$RUN_N_DIR/$system-start.log" >&2
        exit 1
    }
    BROKER_PIDS=()
    for ((i = 1; i <= NODES; i++)); do
        pid="$(cat "$TIDELINE_DIR/node-$i.pid")"
        # Tracked as well, so that the EXIT trap stops them even if cluster.sh stop cannot.
        track "$pid" "$TIDELINE_DIR/node-$i.properties"
        BROKER_PIDS+=("$pid")
    done
    TIDELINE_GRPC_BOOTSTRAP="127.0.0.1:$((TIDELINE_CLIENT_PORT_BASE + 1))"
    BOOTSTRAP="$TIDELINE_GRPC_BOOTSTRAP"
    if [[ "$system" == tideline-kafka ]]; then
        BOOTSTRAP="$(TIDELINE_CLUSTER_DIR="$TIDELINE_DIR" "$ROOT/scripts/cluster.sh" status \
            | sed -n 's/^kafka bootstrap server: //p')"
        [[ -n "$BOOTSTRAP" ]] || { echo "compare-kafka.sh: cluster.sh status printed no 'kafka bootstrap server:' line" >&2; exit 1; }
    fi
    log "Tideline ($system): $NODES nodes serving (pids ${BROKER_PIDS[*]}), bootstrap $BOOTSTRAP"
}

stop_tideline() {
    log "stopping Tideline (pids ${BROKER_PIDS[*]})"
    TIDELINE_CLUSTER_DIR="$TIDELINE_DIR" "$ROOT/scripts/cluster.sh" stop > "$TIDELINE_DIR-stop.log" 2>&1 || true
    stop_tracked 30
    BROKER_PIDS=()
    ((KEEP_DATA)) || rm -rf "$TIDELINE_DIR"/node-*/logs "$TIDELINE_DIR"/node-*/metadata
    TIDELINE_DIR=""
}

create_topic() { # system name partitions
    if [[ "$1" == kafka ]]; then
        "$KAFKA_RUN" "$KAFKA_E2E_HEAP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create \
            --topic "$2" --partitions "$3" --replication-factor 3 --config min.insync.replicas=2 > /dev/null
    else
        "$ROOT/scripts/tideline" admin --bootstrap-server "$TIDELINE_GRPC_BOOTSTRAP" topics --create --topic "$2" --partitions "$3" \
            --replication-factor 3 --config min.insync.replicas=2 > /dev/null
    fi
}

# ---------------------------------------------------------------------------------------------------------
# Broker resources per workload.
CLK_TCK="$(getconf CLK_TCK)"

cpu_ticks() { # pid -> utime + stime in clock ticks
    local stat rest
    stat="$(< "/proc/$1/stat")" || { echo 0; return; }
    rest="${stat##*) }"
    # shellcheck disable=SC2086 # split into fields on purpose
    set -- $rest
    # Fields 14 and 15 of the line are the 12th and 13th after the command name.
    echo $(("${12}" + "${13}"))
}

status_kb() { # pid key -> value in kB of a /proc/PID/status line (VmRSS, VmHWM)
    local k v _
    while read -r k v _; do
        [[ "$k" == "$2:" ]] && { echo "$v"; return; }
    done < "/proc/$1/status"
    echo 0
}

# Peak RSS: VmHWM after resetting it (writing 5 to clear_refs, where allowed), and a sample every 0.5 s as
# a floor where it is not.
start_sampler() { # file pids...
    local file="$1"
    shift
    (
        while :; do
            for p in "$@"; do
                echo "$p $(status_kb "$p" VmRSS)"
            done
            sleep 0.5
        done
    ) > "$file" 2> /dev/null &
    SAMPLER_PID=$!
}

RESULTS=""

record() { # system run workload metric value
    printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS"
}

FAILED=0

# measure system run workload command... : runs one tool in the background (so that the EXIT trap can stop
# it), bounded by a timeout, and records the brokers' RSS and CPU over it. Output in $OUT_DIR.
measure() {
    local system="$1" run="$2" workload="$3"
    shift 3
    local out="$OUT_DIR/$system-r$run-$workload.txt" pid i rc=0 hwm_reset=1 before=() tool
    for pid in "${BROKER_PIDS[@]}"; do
        before+=("$(cpu_ticks "$pid")")
        echo 5 2> /dev/null > "/proc/$pid/clear_refs" || hwm_reset=0
    done
    start_sampler "$OUT_DIR/$system-r$run-$workload.rss" "${BROKER_PIDS[@]}"
    log "$system run $run: $workload"
    timeout -k 10 "$TOOL_TIMEOUT_S" "$@" > "$out" 2> "$out.err" &
    tool=$!
    track "$tool" "$1"
    wait "$tool" || rc=$?
    stop_sampler
    local peak end cpu=0 sampled worst_peak=0 worst_end=0
    for i in "${!BROKER_PIDS[@]}"; do
        pid="${BROKER_PIDS[$i]}"
        end="$(status_kb "$pid" VmRSS)"
        sampled="$(awk -v p="$pid" '$1 == p && $2 > m { m = $2 } END { print m + 0 }' "$OUT_DIR/$system-r$run-$workload.rss")"
        peak="$sampled"
        if ((hwm_reset)); then
            local hwm
            hwm="$(status_kb "$pid" VmHWM)"
            ((hwm > peak)) && peak="$hwm"
        fi
        ((end > peak)) && peak="$end"
        cpu=$((cpu + $(cpu_ticks "$pid") - before[i]))
        record "$system" "$run" "$workload" "broker$((i + 1))_rss_peak_mib" "$((peak / 1024))"
        record "$system" "$run" "$workload" "broker$((i + 1))_rss_end_mib" "$((end / 1024))"
        ((peak > worst_peak)) && worst_peak="$peak"
        ((end > worst_end)) && worst_end="$end"
    done
    record "$system" "$run" "$workload" rss_peak_mib "$((worst_peak / 1024))"
    record "$system" "$run" "$workload" rss_end_mib "$((worst_end / 1024))"
    record "$system" "$run" "$workload" cpu_s "$(awk -v t="$cpu" -v hz="$CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')"
    if ((rc != 0)); then
        log "$system run $run: $workload failed (exit $rc); the end of $out.err:"
        tail -n 5 "$out.err" >&2 || true
        FAILED=$((FAILED + 1))
        return 1
    fi
}

# step system run workload parser command... : measures the command, then reads its figures with the parser.
# A failure of either is counted and the run goes on without those figures.
step() {
    local system="$1" run="$2" w="$3" parser="$4"
    shift 4
    measure "$system" "$run" "$w" "$@" || return 0
    if ! "$parser" "$system" "$run" "$w" "$OUT_DIR/$system-r$run-$w.txt"; then
        log "$system run $run: $w printed no summary line; see $OUT_DIR/$system-r$run-$w.txt"
        FAILED=$((FAILED + 1))
    fi
}

# A summary line of ProducerPerformance / tideline perf produce after "N " and before " records sent, ...":
# nothing (the whole run) or "steady state " (the records after --warmup-records). Prints its eight figures.
summary_figures() { # file kind
    local line
    line="$(grep -E "^[0-9]+ $2records sent, .* 99\\.9th\\.\$" "$1" | tail -n 1)" || return 1
    # 500000 records sent, 17891.234567 records/sec (17.47 MB/sec), 1234.56 ms avg latency, 2345.00 ms max latency,
    # 1200 ms 50th, 2000 ms 95th, 2200 ms 99th, 2300 ms 99.9th.
    sed -E "s/^[0-9]+ $2records sent, ([0-9.]+) records\\/sec \\(([0-9.]+) MB\\/sec\\), ([0-9.NaN]+) ms avg latency, ([0-9.]+) ms max latency, ([0-9]+) ms 50th, ([0-9]+) ms 95th, ([0-9]+) ms 99th, ([0-9]+) ms 99\\.9th\\.\$/\\1 \\2 \\3 \\4 \\5 \\6 \\7 \\8/" <<< "$line"
}

# The summary lines of ProducerPerformance / tideline perf produce -> records result lines.
parse_produce() { # system run workload file
    local figures rps mbps avg max p50 p95 p99 p999
    figures="$(summary_figures "$4" "")" || return 1
    read -r rps mbps avg max p50 p95 p99 p999 <<< "$figures"
    record "$1" "$2" "$3" records_per_s "$rps"
    record "$1" "$2" "$3" mb_per_s "$mbps"
    record "$1" "$2" "$3" latency_avg_ms "$avg"
    record "$1" "$2" "$3" latency_p50_ms "$p50"
    record "$1" "$2" "$3" latency_p95_ms "$p95"
    record "$1" "$2" "$3" latency_p99_ms "$p99"
    record "$1" "$2" "$3" latency_p999_ms "$p999"
    record "$1" "$2" "$3" latency_max_ms "$max"
    # With --warmup-records both tools add a line for the records after the warm-up ("steady state").
    figures="$(summary_figures "$4" "steady state ")" || return 0
    read -r rps mbps avg max p50 p95 p99 p999 <<< "$figures"
    record "$1" "$2" "$3" steady_latency_avg_ms "$avg"
    record "$1" "$2" "$3" steady_latency_p50_ms "$p50"
    record "$1" "$2" "$3" steady_latency_p99_ms "$p99"
    record "$1" "$2" "$3" steady_latency_max_ms "$max"
}

# The CSV row of ConsumerPerformance / tideline perf consume.
parse_consume() { # system run workload file
    local row
    row="$(grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} .*, .*, ' "$4" | tail -n 1)" || return 1
    IFS=',' read -r _ _ _ _ n _ rebalance _ fetch_mbps fetch_nps <<< "$row"
    record "$1" "$2" "$3" consumed_records "${n// /}"
    record "$1" "$2" "$3" fetch_mb_per_s "${fetch_mbps// /}"
    record "$1" "$2" "$3" fetch_records_per_s "${fetch_nps// /}"
    record "$1" "$2" "$3" rebalance_ms "${rebalance// /}"
}

# The Avg and Percentiles lines of EndToEndLatency / tideline perf e2e.
parse_e2e() { # system run workload file
    local avg pct
    avg="$(sed -nE 's/^Avg latency: ([0-9.]+) ms$/\1/p' "$4")"
    pct="$(sed -nE 's/^Percentiles: 50th = ([0-9]+), 99th = ([0-9]+), 99\.9th = ([0-9]+)$/\1 \2 \3/p' "$4")"
    [[ -n "$avg" && -n "$pct" ]] || return 1
    read -r p50 p99 p999 <<< "$pct"
    record "$1" "$2" "$3" latency_avg_ms "$avg"
    record "$1" "$2" "$3" latency_p50_ms "$p50"
    record "$1" "$2" "$3" latency_p99_ms "$p99"
    record "$1" "$2" "$3" latency_p999_ms "$p999"
}

# The value of one metric of one workload of one system and run, or nothing.
value_of() { # system run workload metric
    awk -F'\t' -v s="$1" -v r="$2" -v w="$3" -v m="$4" '$1 == s && $2 == r && $3 == w && $4 == m { v = $5 } END { if (v != "") print v }' "$RESULTS"
}

# ---------------------------------------------------------------------------------------------------------
# One system's workloads in one run. All three get the very same flags; only the program (and for tideline-kafka
# the broker behind Kafka's program) differs.
CMD=()

perf_cmd() { # system produce|consume|e2e flags... -> CMD
    local system="$1" kind="$2"
    shift 2
    if [[ "$system" == tideline ]]; then
        CMD=("$ROOT/scripts/tideline" perf "$kind" "$@")
        return
    fi
    case "$kind" in
        produce) CMD=("$KAFKA_RUN" "$KAFKA_PERF_HEAP" org.apache.kafka.tools.ProducerPerformance "$@") ;;
        consume) CMD=("$KAFKA_RUN" "$KAFKA_PERF_HEAP" org.apache.kafka.tools.ConsumerPerformance "$@") ;;
        e2e) CMD=("$KAFKA_RUN" "$KAFKA_E2E_HEAP" org.apache.kafka.tools.EndToEndLatency "$@") ;;
    esac
}

# $HALF_RATE_1P / $HALF_RATE_3P come from Kafka's unbounded runs in the same run, before Tideline's turn.
run_workloads() { # system run
    local system="$1" run="$2" p w rate_var rate warmup
    for p in 1 3; do
        create_topic "$system" "p$p" "$p"
    done
    create_topic "$system" e2e 1
    for p in 1 3; do
        w="produce-${p}p"
        perf_cmd "$system" produce --bootstrap-server "$BOOTSTRAP" --topic "p$p" --num-records "$RECORDS" \
            --record-size "$RECORD_SIZE" --throughput -1 --command-property acks=all
        step "$system" "$run" "$w" parse_produce "${CMD[@]}"
    done
    if [[ "$system" == kafka ]]; then
        HALF_RATE_1P="$(value_of kafka "$run" produce-1p records_per_s | awk '{ printf "%d", $1 / 2 }')"
        HALF_RATE_3P="$(value_of kafka "$run" produce-3p records_per_s | awk '{ printf "%d", $1 / 2 }')"
        record kafka "$run" produce-1p-half target_records_per_s "${HALF_RATE_1P:-0}"
        record kafka "$run" produce-3p-half target_records_per_s "${HALF_RATE_3P:-0}"
    fi
    for p in 1 3; do
        w="produce-${p}p-half"
        rate_var="HALF_RATE_${p}P"
        rate="${!rate_var:-0}"
        if ((rate < 1)); then
            log "$system run $run: no Kafka rate for produce-${p}p, skipping $w"
            continue
        fi
        # The first 5 s of records (at most half of them) are the tool's warm-up: its own JVM compiling, its
        # metadata, producer id and connections (docs/performance.md). The whole run is reported as well.
        warmup=$((rate * 5 < RECORDS / 8 ? rate * 5 : RECORDS / 8))
        perf_cmd "$system" produce --bootstrap-server "$BOOTSTRAP" --topic "p$p" --num-records $((RECORDS / 4)) \
            --record-size "$RECORD_SIZE" --throughput "$rate" --command-property acks=all --warmup-records "$warmup"
        step "$system" "$run" "$w" parse_produce "${CMD[@]}"
    done
    for p in 1 3; do
        w="consume-${p}p"
        perf_cmd "$system" consume --bootstrap-server "$BOOTSTRAP" --topic "p$p" --num-records "$RECORDS" --timeout 30000
        step "$system" "$run" "$w" parse_consume "${CMD[@]}"
    done
    perf_cmd "$system" e2e --bootstrap-server "$BOOTSTRAP" --topic e2e --num-records "$E2E_RECORDS" --producer-acks all \
        --record-size "$RECORD_SIZE"
    step "$system" "$run" e2e parse_e2e "${CMD[@]}"
}

# ---------------------------------------------------------------------------------------------------------
# The table: for each workload and metric, median (min-max) over the runs of each system, and the ratio.
ROWS=(
    "produce-1p|records_per_s|records/s|higher"
    "produce-1p|mb_per_s|MB/s|higher"
    "produce-1p|latency_avg_ms|avg latency ms|lower"
    "produce-1p|latency_p99_ms|p99 latency ms|lower"
    "produce-3p|records_per_s|records/s|higher"
    "produce-3p|mb_per_s|MB/s|higher"
    "produce-3p|latency_avg_ms|avg latency ms|lower"
    "produce-3p|latency_p99_ms|p99 latency ms|lower"
    "produce-1p-half|records_per_s|records/s (target: half of Kafka's)|same"
    "produce-1p-half|latency_avg_ms|avg latency ms|lower"
    "produce-1p-half|latency_p50_ms|p50 latency ms|lower"
    "produce-1p-half|latency_p99_ms|p99 latency ms|lower"
    "produce-1p-half|latency_p999_ms|p99.9 latency ms|lower"
    "produce-1p-half|latency_max_ms|max latency ms|lower"
    "produce-1p-half|steady_latency_avg_ms|after the first 5 s: avg latency ms|lower"
    "produce-1p-half|steady_latency_p50_ms|after the first 5 s: p50 latency ms|lower"
    "produce-1p-half|steady_latency_p99_ms|after the first 5 s: p99 latency ms|lower"
    "produce-1p-half|steady_latency_max_ms|after the first 5 s: max latency ms|lower"
    "produce-3p-half|records_per_s|records/s (target: half of Kafka's)|same"
    "produce-3p-half|latency_avg_ms|avg latency ms|lower"
    "produce-3p-half|latency_p50_ms|p50 latency ms|lower"
    "produce-3p-half|latency_p99_ms|p99 latency ms|lower"
    "produce-3p-half|latency_p999_ms|p99.9 latency ms|lower"
    "produce-3p-half|latency_max_ms|max latency ms|lower"
    "produce-3p-half|steady_latency_avg_ms|after the first 5 s: avg latency ms|lower"
    "produce-3p-half|steady_latency_p50_ms|after the first 5 s: p50 latency ms|lower"
    "produce-3p-half|steady_latency_p99_ms|after the first 5 s: p99 latency ms|lower"
    "produce-3p-half|steady_latency_max_ms|after the first 5 s: max latency ms|lower"
    "consume-1p|fetch_mb_per_s|fetch.MB.sec|higher"
    "consume-1p|fetch_records_per_s|fetch.nMsg.sec|higher"
    "consume-3p|fetch_mb_per_s|fetch.MB.sec|higher"
    "consume-3p|fetch_records_per_s|fetch.nMsg.sec|higher"
    "e2e|latency_avg_ms|avg latency ms|lower"
    "e2e|latency_p50_ms|p50 latency ms|lower"
    "e2e|latency_p99_ms|p99 latency ms|lower"
    "e2e|latency_p999_ms|p99.9 latency ms|lower"
)
WORKLOADS=(produce-1p produce-3p produce-1p-half produce-3p-half consume-1p consume-3p e2e)

# The three systems of the table, in its column order: Kafka, Tideline over gRPC (tideline perf), and Tideline's
# Kafka listener (Kafka's tools).
SYSTEMS=(kafka tideline tideline-kafka)

# "median (min-max)" of one system's values for a workload and metric, and the median alone on a second line.
summary() { # system workload metric
    awk -F'\t' -v s="$1" -v w="$2" -v m="$3" '
        # Whole numbers from 100 on, else at most two decimals without trailing zeros.
        function fmt(x,   t) {
            if (x >= 100) return sprintf("%.0f", x)
            t = sprintf("%.2f", x)
            sub(/0+$/, "", t)
            sub(/\.$/, "", t)
            return t
        }
        $1 == s && $3 == w && $4 == m && $5 != "" && $5 != "NaN" { v[n++] = $5 + 0 }
        END {
            if (n == 0) { print "n/a"; print ""; exit }
            for (i = 1; i < n; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
            med = (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
            if (n == 1) print fmt(med); else print fmt(med) " (" fmt(v[0]) "-" fmt(v[n - 1]) ")"
            print med
        }' "$RESULTS"
}

print_table() {
    local row workload metric label better
    echo "| workload | metric | better | Kafka $KAFKA_VERSION median (min-max) | Tideline (tideline perf) median (min-max) | Tideline Kafka listener (Kafka's tools) median (min-max) | listener/Kafka | tideline perf/Kafka |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for row in "${ROWS[@]}"; do
        IFS='|' read -r workload metric label better <<< "$row"
        print_row "$workload" "$metric" "$label" "$better"
    done
    for workload in "${WORKLOADS[@]}"; do
        print_row "$workload" rss_peak_mib "broker RSS peak MiB (largest of $NODES)" lower
        print_row "$workload" rss_end_mib "broker RSS at end MiB (largest of $NODES)" lower
        print_row "$workload" cpu_s "broker CPU s (sum of $NODES)" lower
    done
}

# The ratio of two medians ("1.23x"), or n/a when either is missing or the divisor is 0.
ratio() { # median divisor-median
    if [[ -n "$1" && -n "$2" ]]; then
        awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2fx", a / b }'
    else
        echo "n/a"
    fi
}

print_row() { # workload metric label better
    local system cell median cells=() medians=()
    for system in "${SYSTEMS[@]}"; do
        { read -r cell; read -r median; } < <(summary "$system" "$1" "$2")
        cells+=("$cell")
        medians+=("$median")
    done
    echo "| $1 | $3 | $4 | ${cells[0]} | ${cells[1]} | ${cells[2]} | $(ratio "${medians[2]}" "${medians[0]}") | $(ratio "${medians[1]}" "${medians[0]}") |"
}

machine() {
    local cpu
    cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "$(nproc) cores (${cpu:-unknown CPU}), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(java -version 2>&1 | head -n 1)"
}

main() {
    parse_args "$@"
    if [[ -n "$TABLE_ONLY" ]]; then
        RESULTS="$TABLE_ONLY/results.tsv"
        [[ -f "$RESULTS" ]] || { echo "compare-kafka.sh: no $RESULTS" >&2; exit 2; }
        print_table
        return 0
    fi
    command -v java > /dev/null || { echo "compare-kafka.sh: java not found" >&2; exit 1; }
    command -v mvn > /dev/null || { echo "compare-kafka.sh: mvn not found" >&2; exit 1; }
    check_ports_free
    RUN_DIR="$HOME_DIR/runs/$(date +%Y%m%d-%H%M%S)"
    OUT_DIR="$RUN_DIR/out"
    mkdir -p "$OUT_DIR"
    RESULTS="$RUN_DIR/results.tsv"
    : > "$RESULTS"
    # A tool that has not finished by then has hung; the run goes on without its figures.
    TOOL_TIMEOUT_S=$((QUICK ? 300 : 1800))
    fetch_kafka
    write_log4j_configs
    write_kafka_run
    "$ROOT/scripts/tideline" build
    local started load_start run
    started="$(date '+%Y-%m-%d %H:%M')"
    load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
    local t0=$SECONDS
    log "$RUNS runs of $RECORDS records ($((RECORDS / 4)) at half rate), e2e $E2E_RECORDS; output in $RUN_DIR"
    for ((run = 1; run <= RUNS; run++)); do
        echo "run $run start: load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$RUN_DIR/load.txt"
        HALF_RATE_1P=0
        HALF_RATE_3P=0
        RUN_N_DIR="$RUN_DIR/r$run"
        mkdir -p "$RUN_N_DIR"
        start_kafka
        run_workloads kafka "$run"
        stop_kafka
        start_tideline tideline
        run_workloads tideline "$run"
        stop_tideline
        start_tideline tideline-kafka
        run_workloads tideline-kafka "$run"
        stop_tideline
    done
    local load_end elapsed
    load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
    elapsed=$((SECONDS - t0))
    {
        echo "## Tideline (through its Kafka listener and through gRPC) and Apache Kafka $KAFKA_VERSION, $NODES brokers each"
        echo
        echo "- date: $started; $RUNS runs, $((elapsed / 60)) min $((elapsed % 60)) s$( ((QUICK)) && echo ' (--quick)')"
        echo "- machine: $(machine)"
        echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $load_end"
        echo "- workloads: RF 3, min.insync.replicas=2, acks=all, $RECORD_SIZE-byte records; produce $RECORDS records unbounded, $((RECORDS / 4)) at half of Kafka's rate in the same run (rates: $(awk -F'\t' '$4 == "target_records_per_s" { printf "%s%s %s", sep, $3, $5; sep = ", " }' "$RESULTS")); consume the first $RECORDS; e2e $E2E_RECORDS records"
        echo "- brokers: $BROKER_HEAP each; Kafka with kafka-run-class.sh's JVM options; the listener column runs Kafka's tools (same JVM options and heaps) against a fresh Tideline cluster's Kafka listener; consume figures are fetch.* (Kafka's ConsumerPerformance joins a group on both Kafka and the listener and MB.sec counts the join; tideline perf has no groups)"
        echo
        print_table
        if ((FAILED > 0)); then
            echo
            echo "$FAILED workload runs failed; see $OUT_DIR/*.err"
        fi
    } | tee "$RUN_DIR/report.md"
    log "report: $RUN_DIR/report.md; tool outputs (diffable line by line): $OUT_DIR"
    ((FAILED == 0))
}

# On one line: bash reads a script as it runs it, so nothing after this line is read once main has started
# (an edit to the file during a run cannot end up executed).
main "$@"; exit "$?"
