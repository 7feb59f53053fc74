package io.tideline.node.config;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.BOOLEAN;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LIST;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.Validator;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The node-level settings that place a node in the cluster: its id, its roles, where the metadata quorum
 * is, and the controller's liveness and snapshot rules, under Kafka's key names where the concept is
 * Kafka's. Store settings ({@code log.dirs}, ...) live in {@code StoreConfig} and may sit in the same
 * file; they show up in {@link #unknownKeys()} here.
 *
 * <p>Parsed and cross-checked once in the constructor ({@link #validate()}); an instance is always valid.
 * Immutable and safe to share between threads.
 */
public final class NodeConfig extends AbstractConfig {

    public static final String NODE_ID_CONFIG = "node.id";

    public static final String PROCESS_ROLES_CONFIG = "process.roles";

    public static final String CONTROLLER_QUORUM_VOTERS_CONFIG = "controller.quorum.voters";

    public static final String METADATA_LOG_DIR_CONFIG = "metadata.log.dir";

    public static final String CLUSTER_ID_CONFIG = "cluster.id";
    public static final String CLUSTER_ID_DEFAULT = "tideline";

    public static final String BROKER_HEARTBEAT_INTERVAL_MS_CONFIG = "broker.heartbeat.interval.ms";
    public static final long BROKER_HEARTBEAT_INTERVAL_MS_DEFAULT = 2000L;

    public static final String BROKER_SESSION_TIMEOUT_MS_CONFIG = "broker.session.timeout.ms";
    public static final long BROKER_SESSION_TIMEOUT_MS_DEFAULT = 9000L;

    public static final String UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG =
            TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG;
    public static final boolean UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT =
            TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT;

    public static final String BROKER_RACK_CONFIG = "broker.rack";
    public static final String BROKER_RACK_DEFAULT = "";

    public static final String METADATA_SNAPSHOT_ENTRIES_CONFIG = "metadata.snapshot.entries";
    public static final long METADATA_SNAPSHOT_ENTRIES_DEFAULT = 1000L;

    public static final String METADATA_FETCH_INTERVAL_MS_CONFIG = "metadata.fetch.interval.ms";
    public static final long METADATA_FETCH_INTERVAL_MS_DEFAULT = 500L;

    public static final String AUTO_LEADER_REBALANCE_ENABLE_CONFIG = "auto.leader.rebalance.enable";
    public static final boolean AUTO_LEADER_REBALANCE_ENABLE_DEFAULT = true;

    public static final String LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_CONFIG = "leader.imbalance.per.broker.percentage";
    public static final int LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT = 10;

    public static final String LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_CONFIG = "leader.imbalance.check.interval.seconds";
    public static final long LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_DEFAULT = 300L;

    public static final String UNCLEAN_LEADER_ELECTION_INTERVAL_MS_CONFIG = "unclean.leader.election.interval.ms";
    public static final long UNCLEAN_LEADER_ELECTION_INTERVAL_MS_DEFAULT = 300_000L;

    public static final String AUTO_CREATE_TOPICS_ENABLE_CONFIG = "auto.create.topics.enable";
    public static final boolean AUTO_CREATE_TOPICS_ENABLE_DEFAULT = true;

    public static final String NUM_PARTITIONS_CONFIG = "num.partitions";
    public static final int NUM_PARTITIONS_DEFAULT = 1;

    public static final String DEFAULT_REPLICATION_FACTOR_CONFIG = "default.replication.factor";
    public static final int DEFAULT_REPLICATION_FACTOR_DEFAULT = 1;

    public static final String MAX_PARTITIONS_CONFIG = "max.partitions";
    public static final int MAX_PARTITIONS_DEFAULT = 100_000;

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(NODE_ID_CONFIG, INT, ConfigDef.NO_DEFAULT, Range.atLeast(0), HIGH,
                    "The id of this node, unique in the cluster. A controller's id must appear in "
                    + "controller.quorum.voters; a broker registers under it and replica assignments name it.")
            .define(PROCESS_ROLES_CONFIG, LIST, ConfigDef.NO_DEFAULT, new RolesValidator(), HIGH,
                    "The roles this node runs: broker (hosts partition replicas), controller (a voter of the "
                    + "metadata quorum), or both (broker,controller). A broker-only node keeps its metadata "
                    + "image by fetching it from the quorum every metadata.fetch.interval.ms.")
            .define(CONTROLLER_QUORUM_VOTERS_CONFIG, LIST, ConfigDef.NO_DEFAULT, new VotersValidator(), HIGH,
                    "The voters of the metadata quorum as id@host:port entries, e.g. "
                    + "1@ctrl1:9093,2@ctrl2:9093,3@ctrl3:9093 (an IPv6 host goes in brackets: 4@[::1]:9093). "
                    + "Every node of the cluster lists the same voters; the port is the voter's Raft (gRPC) "
                    + "port. Brokers use it to find the active controller.")
            .define(METADATA_LOG_DIR_CONFIG, STRING, ConfigDef.NO_DEFAULT, new NonBlank(), HIGH,
                    "The directory for this node's metadata: the Raft log and snapshots on a controller.")
            .define(CLUSTER_ID_CONFIG, STRING, CLUSTER_ID_DEFAULT, new NonBlank(), MEDIUM,
                    "The cluster's name. The Raft group id of the metadata quorum is derived from it, so nodes "
                    + "configured with different cluster ids never join each other's quorum.")
            .define(BROKER_HEARTBEAT_INTERVAL_MS_CONFIG, LONG, BROKER_HEARTBEAT_INTERVAL_MS_DEFAULT,
                    Range.atLeast(1), MEDIUM,
                    "How often a broker sends a heartbeat to the active controller.")
            .define(BROKER_SESSION_TIMEOUT_MS_CONFIG, LONG, BROKER_SESSION_TIMEOUT_MS_DEFAULT,
                    Range.atLeast(1), MEDIUM,
                    "How long the active controller waits for a broker's heartbeat before it fences the "
                    + "broker: its leaderships move to other in-sync replicas and it leaves every ISR. Must be "
                    + "greater than broker.heartbeat.interval.ms. A newly elected controller gives every broker "
                    + "a fresh session of this length.")
            .define(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, BOOLEAN, UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT, HIGH,
                    "The cluster-wide default for the topic key of the same name: whether the controller may "
                    + "elect a replica outside the ISR when no ISR member is alive. false keeps such a "
                    + "partition offline until an ISR member returns, so committed records are not lost. The "
                    + "controller reads this node's value unless a cluster-wide dynamic default "
                    + "(--entity-default) is set; all controllers should have the same.")
            .define(UNCLEAN_LEADER_ELECTION_INTERVAL_MS_CONFIG, LONG, UNCLEAN_LEADER_ELECTION_INTERVAL_MS_DEFAULT,
                    Range.atLeast(1), LOW,
                    "How often the active controller looks for partitions with no leader whose "
                    + "unclean.leader.election.enable is true (the topic's, else the cluster default) and elects a "
                    + "live replica outside the ISR for each; this is how a partition already offline comes back "
                    + "when the setting is turned on. Kafka's key (internal there) and default.")
            .define(BROKER_RACK_CONFIG, STRING, BROKER_RACK_DEFAULT, LOW,
                    "The rack (or availability zone) of this broker. When racks are set, the controller "
                    + "spreads each partition's replicas over as many racks as it can. Empty: no rack.")
            .define(METADATA_SNAPSHOT_ENTRIES_CONFIG, LONG, METADATA_SNAPSHOT_ENTRIES_DEFAULT, Range.atLeast(1),
                    LOW,
                    "Committed metadata log entries between two automatic snapshots of the metadata image on "
                    + "a controller. A restarting voter loads the latest snapshot and replays the entries "
                    + "after it, so this bounds the replay at restart.")
            .define(METADATA_FETCH_INTERVAL_MS_CONFIG, LONG, METADATA_FETCH_INTERVAL_MS_DEFAULT, Range.atLeast(1),
                    LOW,
                    "How often a broker that is not a voter asks the quorum for a newer metadata image: a "
                    + "committed change reaches such a broker within about this interval plus one round trip.")
            .define(AUTO_LEADER_REBALANCE_ENABLE_CONFIG, BOOLEAN, AUTO_LEADER_REBALANCE_ENABLE_DEFAULT, HIGH,
                    "Whether the active controller moves leadership back to each partition's preferred (first) "
                    + "replica on its own, every leader.imbalance.check.interval.seconds, for the brokers whose "
                    + "leader imbalance is above leader.imbalance.per.broker.percentage. Without it, leadership "
                    + "stays where failovers put it until an operator runs a preferred leader election.")
            .define(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_CONFIG, INT, LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT,
                    Range.between(0, 100), HIGH,
                    "The leader imbalance a broker may have before balancing acts, in percent: of the partitions "
                    + "whose preferred replica is the broker, the share led by another broker or by none. Above "
                    + "it, every such partition whose preferred replica is unfenced and in the ISR gets a "
                    + "preferred election.")
            .define(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_CONFIG, LONG, LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_DEFAULT,
                    Range.atLeast(1), HIGH,
                    "How often the active controller checks the leader imbalance (the first check one interval "
                    + "after the node starts). A broker back from a restart leads its partitions again at most "
                    + "this long after it caught up.")
            .define(AUTO_CREATE_TOPICS_ENABLE_CONFIG, BOOLEAN, AUTO_CREATE_TOPICS_ENABLE_DEFAULT, HIGH,
                    "Whether a Kafka Metadata request with allow_auto_topic_creation (a producer's, or a consumer's "
                    + "with allow.auto.create.topics) creates the topics it names that do not exist, with this "
                    + "broker's num.partitions and default.replication.factor. false: such a topic is "
                    + "UNKNOWN_TOPIC_OR_PARTITION until someone creates it. Read at start (read-only, as in Kafka).")
            .define(NUM_PARTITIONS_CONFIG, INT, NUM_PARTITIONS_DEFAULT, Range.between(1, Short.MAX_VALUE), MEDIUM,
                    "The partition count of a topic created without one: through the Kafka listener with "
                    + "num_partitions -1 (Kafka's AdminClient NewTopic without a count), by "
                    + "auto.create.topics.enable, or by the gRPC CreateTopics with -1 (tideline admin topics "
                    + "--create without --partitions); the broker that receives the request applies its own value.")
            .define(DEFAULT_REPLICATION_FACTOR_CONFIG, INT, DEFAULT_REPLICATION_FACTOR_DEFAULT,
                    Range.between(1, Short.MAX_VALUE), MEDIUM,
                    "The replication factor of a topic created without one: through the Kafka listener with "
                    + "replication_factor -1, by auto.create.topics.enable, or by the gRPC CreateTopics with -1 "
                    + "(tideline admin topics --create without --replication-factor); the broker that receives the "
                    + "request applies its own value.")
            .define(MAX_PARTITIONS_CONFIG, INT, MAX_PARTITIONS_DEFAULT, Range.atLeast(1), MEDIUM,
                    "The most partitions the cluster may hold, all topics together. A CreateTopics or "
                    + "CreatePartitions that would pass it is refused with POLICY_VIOLATION and changes nothing, so "
                    + "the metadata image every node holds in memory cannot grow without bound. Enforced by the "
                    + "controller: all controllers must have the same value. Lowering it below the cluster's current "
                    + "count removes nothing; it only stops new partitions. (One request adds at most 10000, as in "
                    + "Kafka.)");

    private final int nodeId;
    private final Set<ProcessRole> roles;
    private final SortedMap<Integer, InetSocketAddress> voters;
    private final Path metadataLogDir;
    private final String clusterId;
    private final long brokerHeartbeatIntervalMs;
    private final long brokerSessionTimeoutMs;
    private final boolean uncleanLeaderElectionEnable;
    private final String brokerRack;
    private final long metadataSnapshotEntries;
    private final long metadataFetchIntervalMs;
    private final boolean autoLeaderRebalanceEnable;
    private final int leaderImbalancePerBrokerPercentage;
    private final long leaderImbalanceCheckIntervalSeconds;
    private final long uncleanLeaderElectionIntervalMs;
    private final boolean autoCreateTopicsEnable;
    private final int numPartitions;
    private final int defaultReplicationFactor;
    private final int maxPartitions;

    /**
     * @throws ConfigException naming the key for a bad or missing value, or a broken cross-field rule
     */
    public NodeConfig(Map<String, ?> props) {
        super(CONFIG, props);
        this.nodeId = getInt(NODE_ID_CONFIG);
        EnumSet<ProcessRole> parsedRoles = EnumSet.noneOf(ProcessRole.class);
        for (String role : getList(PROCESS_ROLES_CONFIG)) {
            parsedRoles.add(ProcessRole.fromConfigName(role));
        }
        this.roles = Collections.unmodifiableSet(parsedRoles);
        this.voters = Collections.unmodifiableSortedMap(parseVoters(getList(CONTROLLER_QUORUM_VOTERS_CONFIG)));
        this.metadataLogDir = Path.of(getString(METADATA_LOG_DIR_CONFIG));
        this.clusterId = getString(CLUSTER_ID_CONFIG);
        this.brokerHeartbeatIntervalMs = getLong(BROKER_HEARTBEAT_INTERVAL_MS_CONFIG);
        this.brokerSessionTimeoutMs = getLong(BROKER_SESSION_TIMEOUT_MS_CONFIG);
        this.uncleanLeaderElectionEnable = getBoolean(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        this.brokerRack = getString(BROKER_RACK_CONFIG);
        this.metadataSnapshotEntries = getLong(METADATA_SNAPSHOT_ENTRIES_CONFIG);
        this.metadataFetchIntervalMs = getLong(METADATA_FETCH_INTERVAL_MS_CONFIG);
        this.autoLeaderRebalanceEnable = getBoolean(AUTO_LEADER_REBALANCE_ENABLE_CONFIG);
        this.leaderImbalancePerBrokerPercentage = getInt(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_CONFIG);
        this.leaderImbalanceCheckIntervalSeconds = getLong(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_CONFIG);
        this.uncleanLeaderElectionIntervalMs = getLong(UNCLEAN_LEADER_ELECTION_INTERVAL_MS_CONFIG);
        this.autoCreateTopicsEnable = getBoolean(AUTO_CREATE_TOPICS_ENABLE_CONFIG);
        this.numPartitions = getInt(NUM_PARTITIONS_CONFIG);
        this.defaultReplicationFactor = getInt(DEFAULT_REPLICATION_FACTOR_CONFIG);
        this.maxPartitions = getInt(MAX_PARTITIONS_CONFIG);
        validate();
    }

    /** Same as the constructor. */
    public static NodeConfig fromMap(Map<String, ?> props) {
        return new NodeConfig(props);
    }

    /**
     * Reads a Java properties file (UTF-8).
     *
     * @throws IOException     if the file cannot be read
     * @throws ConfigException for a bad or missing value
     */
    public static NodeConfig fromProperties(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, Object> props = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            props.put(name, properties.getProperty(name));
        }
        return new NodeConfig(props);
    }

    /** A copy of the definitions, for docs and tools. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /**
     * The rules that involve more than one key. Runs in the constructor; public so that a caller holding
     * a config can re-assert them (it always passes on a constructed instance).
     *
     * @throws ConfigException naming the key at fault
     */
    public void validate() {
        if (brokerSessionTimeoutMs <= brokerHeartbeatIntervalMs) {
            throw new ConfigException(BROKER_SESSION_TIMEOUT_MS_CONFIG, brokerSessionTimeoutMs,
                    "must be greater than " + BROKER_HEARTBEAT_INTERVAL_MS_CONFIG + " (" + brokerHeartbeatIntervalMs
                    + "), otherwise a broker is fenced between two heartbeats");
        }
        if (isController() && !voters.containsKey(nodeId)) {
            throw new ConfigException(CONTROLLER_QUORUM_VOTERS_CONFIG,
                    "Node " + nodeId + " has the controller role, so " + NODE_ID_CONFIG + " " + nodeId
                    + " must be one of the voters in " + CONTROLLER_QUORUM_VOTERS_CONFIG + " (ids: "
                    + voters.keySet() + ")");
        }
        // A voter that does not run the controller would never vote, so the quorum would count a member
        // that can never answer: with three voters one such node halves the failures it tolerates.
        if (!isController() && voters.containsKey(nodeId)) {
            throw new ConfigException(CONTROLLER_QUORUM_VOTERS_CONFIG,
                    "Node " + nodeId + " is listed in " + CONTROLLER_QUORUM_VOTERS_CONFIG + " but "
                    + PROCESS_ROLES_CONFIG + " does not contain controller; add the role or remove it from "
                    + "the voters");
        }
    }

    public int nodeId() {
        return nodeId;
    }

    /** The roles from {@code process.roles}; unmodifiable, never empty. */
    public Set<ProcessRole> roles() {
        return roles;
    }

    public boolean isController() {
        return roles.contains(ProcessRole.CONTROLLER);
    }

    public boolean isBroker() {
        return roles.contains(ProcessRole.BROKER);
    }

    /**
     * The quorum voters by node id, sorted by id. The addresses are unresolved: parsing a config never
     * blocks on DNS, and a name that resolves differently later is looked up again when connecting.
     */
    public SortedMap<Integer, InetSocketAddress> voters() {
        return voters;
    }

    public Path metadataLogDir() {
        return metadataLogDir;
    }

    public String clusterId() {
        return clusterId;
    }

    public long brokerHeartbeatIntervalMs() {
        return brokerHeartbeatIntervalMs;
    }

    public long brokerSessionTimeoutMs() {
        return brokerSessionTimeoutMs;
    }

    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    /** Empty when no rack is set. */
    public String brokerRack() {
        return brokerRack;
    }

    public long metadataSnapshotEntries() {
        return metadataSnapshotEntries;
    }

    public long metadataFetchIntervalMs() {
        return metadataFetchIntervalMs;
    }

    public boolean autoLeaderRebalanceEnable() {
        return autoLeaderRebalanceEnable;
    }

    public boolean autoCreateTopicsEnable() {
        return autoCreateTopicsEnable;
    }

    public int numPartitions() {
        return numPartitions;
    }

    public int defaultReplicationFactor() {
        return defaultReplicationFactor;
    }

    /** {@code max.partitions}: the cluster-wide bound on partitions the controller enforces. */
    public int maxPartitions() {
        return maxPartitions;
    }

    public int leaderImbalancePerBrokerPercentage() {
        return leaderImbalancePerBrokerPercentage;
    }

    public long leaderImbalanceCheckIntervalSeconds() {
        return leaderImbalanceCheckIntervalSeconds;
    }

    public long uncleanLeaderElectionIntervalMs() {
        return uncleanLeaderElectionIntervalMs;
    }

    @Override
    public String toString() {
        return "NodeConfig(nodeId=" + nodeId + ", roles=" + roles + ", voters=" + voters.keySet() + ")";
    }

    // ------------------------------------------------------------------ parsing helpers

    /** Parses entries already accepted by {@link VotersValidator}. */
    private static TreeMap<Integer, InetSocketAddress> parseVoters(List<String> entries) {
        TreeMap<Integer, InetSocketAddress> parsed = new TreeMap<>();
        for (String entry : entries) {
            Voter voter = parseVoter(entry);
            parsed.put(voter.id(), InetSocketAddress.createUnresolved(voter.host(), voter.port()));
        }
        return parsed;
    }

    private record Voter(int id, String host, int port) {
    }

    /**
     * {@code id@host:port}, {@code id@[ipv6]:port}.
     *
     * @throws ConfigException naming the key and the entry
     */
    private static Voter parseVoter(String entry) {
        int at = entry.indexOf('@');
        if (at <= 0) {
            throw badVoter(entry, "expected id@host:port");
        }
        int id;
        try {
            id = Integer.parseInt(entry.substring(0, at));
        } catch (NumberFormatException e) {
            throw badVoter(entry, "the id before '@' must be an integer");
        }
        if (id < 0) {
            throw badVoter(entry, "the id must be >= 0");
        }
        String address = entry.substring(at + 1);
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw badVoter(entry, "expected id@host:port");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]") && host.length() > 2) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":") || host.contains("[") || host.contains("]")) {
            throw badVoter(entry, "an IPv6 address must be in brackets, e.g. 1@[::1]:9093");
        }
        if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
            throw badVoter(entry, "the host must not be empty or contain spaces");
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw badVoter(entry, "the port must be an integer");
        }
        if (port < 1 || port > 65535) {
            throw badVoter(entry, "the port must be between 1 and 65535");
        }
        return new Voter(id, host, port);
    }

    private static ConfigException badVoter(String entry, String reason) {
        return new ConfigException(CONTROLLER_QUORUM_VOTERS_CONFIG, entry, reason);
    }

    /** Non-empty, only known roles, no role twice (a duplicate is a typo that hides a missing role). */
    private static final class RolesValidator implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            if (list.isEmpty()) {
                throw new ConfigException(name, "\"\"", "at least one role is needed: " + describe());
            }
            EnumSet<ProcessRole> seen = EnumSet.noneOf(ProcessRole.class);
            for (String entry : list) {
                ProcessRole role = ProcessRole.fromConfigName(entry);
                if (role == null) {
                    throw new ConfigException(name, String.join(",", list),
                            "unknown role '" + entry + "'; roles are " + describe());
                }
                if (!seen.add(role)) {
                    throw new ConfigException(name, String.join(",", list), "role '" + entry + "' is listed twice");
                }
            }
        }

        @Override
        public String describe() {
            return "non-empty subset of broker, controller";
        }
    }

    /** Non-empty, every entry {@code id@host:port}, no id twice. */
    private static final class VotersValidator implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            if (list.isEmpty()) {
                throw new ConfigException(name, "\"\"", "at least one voter is needed");
            }
            Set<Integer> ids = new java.util.HashSet<>();
            for (String entry : list) {
                Voter voter = parseVoter(entry);
                if (!ids.add(voter.id())) {
                    throw new ConfigException(name, entry, "voter id " + voter.id() + " is listed twice");
                }
            }
        }

        @Override
        public String describe() {
            return "non-empty list of id@host:port";
        }
    }

    private static final class NonBlank implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof String s) || s.isBlank()) {
                throw new ConfigException(name, "\"" + value + "\"", "must not be empty");
            }
        }

        @Override
        public String describe() {
            return "non-empty string";
        }
    }
}
