package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.4.0's {@code kafka-metadata-quorum} and {@code kafka-features} tools, unchanged, against a 3-node
 * {@code scripts/cluster.sh} cluster through its Kafka listener (docs/kafka-protocol.md, DescribeQuorum and
 * Features). What the tools print is compared with Tideline's own CLI ({@code admin cluster --describe}, over gRPC):
 * the same cluster id, the same quorum leader, the voters at the quorum addresses the nodes were given.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaQuorumToolsTest {
    private static final String METADATA_QUORUM_COMMAND = "org.apache.kafka.tools.MetadataQuorumCommand";
    private static final String FEATURE_COMMAND = "org.apache.kafka.tools.FeatureCommand";
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Duration TOOL = Duration.ofSeconds(60);
    private static final Pattern STATUS_LINE = Pattern.compile("(?m)^(\\w+):\\s+(.*)$");
    private static final Pattern OURS = Pattern.compile("(?m)^ClusterId: (\\S+)\\tController: (\\d+)\\t");
    private static final Pattern QUORUM_ADDRESS = Pattern.compile("(?m)^\\tBroker: (\\d+)\\t.*\\tQuorumAddress: (\\S+)\\t");
    /** A voter without a directory id, as Kafka 4.4's tool prints it (it leaves the directory id out). */
    private static final Pattern VOTER = Pattern.compile("\\{\"id\": (\\d+), \"endpoints\": \\[\"RAFT://([^\"]+)\"\\]\\}");

    /** FeatureCommand pads its columns with spaces. */
    private static final Pattern FEATURE_AT_ZERO = Pattern.compile("^Feature: (\\S+)\\s+SupportedMinVersion: 0\\s+"
            + "SupportedMaxVersion: 0\\s+FinalizedVersionLevel: 0\\s+Epoch: -$");

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private KafkaTools kafka;
    private List<Long> nodePids = List.of();
    private String bootstrap;

    @BeforeAll
    void startCluster() throws Exception {
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the cluster-tests module");
        cluster = new ScriptCluster(REPO, dir, NODES);
        kafka = KafkaTools.fromBuild(REPO, dir, new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")),
                Map.of()));
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    /** describe --status: the leader, epoch, high watermark and voters Tideline's CLI sees, no observers. */
    @Test
    void metadataQuorumStatusNamesTheQuorumLeaderAndEveryVoter() throws Exception {
        // Compared once both sides agree on a settled leader: an election between the two runs would change it.
        Awaitility.await("kafka-metadata-quorum describe --status as Tideline's CLI describes the cluster")
                .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    ChildProcess.Result status = kafka.run(TOOL, METADATA_QUORUM_COMMAND, "--bootstrap-server", bootstrap,
                            "describe", "--status").assertSucceeded();
                    Map<String, String> fields = new TreeMap<>();
                    Matcher m = STATUS_LINE.matcher(status.stdout());
                    while (m.find()) {
                        fields.put(m.group(1), m.group(2).strip());
                    }
                    ChildProcess.Result ours = cluster.tideline(TOOL, "admin", "--bootstrap-server",
                            cluster.grpcBootstrap(), "cluster", "--describe").assertSucceeded();
                    Matcher o = OURS.matcher(ours.stdout());
                    assertTrue(o.find(), ours.toString());
                    String both = "Kafka's tool:\n" + status + "\nTideline's CLI:\n" + ours;

                    assertEquals(o.group(1), fields.get("ClusterId"), both);
                    assertEquals(o.group(2), fields.get("LeaderId"), both);
                    assertTrue(Long.parseLong(fields.get("LeaderEpoch")) >= 1, both);
                    assertTrue(Long.parseLong(fields.get("HighWatermark")) > 0, both);
                    assertTrue(Long.parseLong(fields.get("MaxFollowerLag")) >= 0, both);
                    assertTrue(Long.parseLong(fields.get("MaxFollowerLagTimeMs")) >= -1, both);
                    assertEquals("[]", fields.get("CurrentObservers"), both);

                    Map<String, String> voters = new TreeMap<>();
                    Matcher v = VOTER.matcher(fields.get("CurrentVoters"));
                    while (v.find()) {
                        voters.put(v.group(1), v.group(2));
                    }
                    Map<String, String> quorumAddresses = new TreeMap<>();
                    Matcher q = QUORUM_ADDRESS.matcher(ours.stdout());
                    while (q.find()) {
                        quorumAddresses.put(q.group(1), q.group(2));
                    }
                    assertEquals(Set.of("1", "2", "3"), quorumAddresses.keySet(), both);
                    assertEquals(quorumAddresses, voters, both);
                    assertTrue(voters.containsKey(fields.get("LeaderId")), both);
                });
    }

    /** describe --replication: one Leader and two Follower rows, numeric offsets, lags and times. */
    @Test
    void metadataQuorumReplicationPrintsOneRowPerVoter() throws Exception {
        Awaitility.await("kafka-metadata-quorum describe --replication with every follower caught up")
                .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    ChildProcess.Result replication = kafka.run(TOOL, METADATA_QUORUM_COMMAND, "--bootstrap-server",
                            bootstrap, "describe", "--replication").assertSucceeded();
                    List<String[]> rows = new ArrayList<>();
                    replication.stdout().lines().map(String::strip).filter(l -> !l.isEmpty())
                            .forEach(l -> rows.add(l.split("\\s+")));
                    assertEquals(List.of("NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                            "LastCaughtUpTimestamp", "Status"), List.of(rows.get(0)), replication.toString());
                    assertEquals(1 + NODES, rows.size(), replication.toString());
                    Set<String> ids = new TreeSet<>();
                    List<String> statuses = new ArrayList<>();
                    long now = System.currentTimeMillis();
                    for (String[] row : rows.subList(1, rows.size())) {
                        assertEquals(7, row.length, replication.toString());
                        ids.add(row[0]);
                        assertEquals("AAAAAAAAAAAAAAAAAAAAAA", row[1], "no directory ids: " + replication);
                        assertTrue(Long.parseLong(row[2]) > 0, replication.toString());
                        // Caught up: the followers hold the leader's whole log (the quorum is quiet).
                        assertEquals(0, Long.parseLong(row[3]), replication.toString());
                        for (int time = 4; time <= 5; time++) {
                            long at = Long.parseLong(row[time]);
                            assertTrue(at <= now && at > now - 60_000, "a time of the last minute: " + replication);
                        }
                        statuses.add(row[6]);
                    }
                    assertEquals(Set.of("1", "2", "3"), ids, replication.toString());
                    assertEquals(List.of("Leader", "Follower", "Follower"), statuses, replication.toString());
                });
    }

    /** kafka-features describe: each of Kafka's features Tideline does not serve, at level 0, nothing finalized. */
    @Test
    void featuresDescribePrintsEveryFeatureAtLevelZero() throws Exception {
        ChildProcess.Result describe = kafka.run(TOOL, FEATURE_COMMAND, "--bootstrap-server", bootstrap, "describe")
                .assertSucceeded();
        Set<String> features = new TreeSet<>();
        for (String line : describe.stdout().lines().toList()) {
            Matcher m = FEATURE_AT_ZERO.matcher(line);
            assertTrue(m.matches(), "line: " + line + "\n" + describe);
            features.add(m.group(1));
        }
        assertEquals(Set.of("eligible.leader.replicas.version", "group.version", "kraft.version", "share.version",
                "streams.version", "transaction.version"), features, describe.toString());
    }

    /** kafka-features upgrade: refused with Kafka's typed error, exit 1, nothing changed. */
    @Test
    void featuresUpgradeIsRefusedWithKafkasUnsupportedError() throws Exception {
        ChildProcess.Result upgrade = kafka.run(TOOL, FEATURE_COMMAND, "--bootstrap-server", bootstrap, "upgrade",
                "--feature", "group.version=1");
        assertNotEquals(0, upgrade.exitCode(), upgrade.toString());
        assertTrue(upgrade.stdout().contains("Could not upgrade group.version to 1.")
                && upgrade.stdout().contains("UPDATE_FEATURES"), upgrade.toString());
        ChildProcess.Result describe = kafka.run(TOOL, FEATURE_COMMAND, "--bootstrap-server", bootstrap, "describe")
                .assertSucceeded();
        assertTrue(describe.stdout().lines().anyMatch(l -> l.startsWith("Feature: group.version ")
                && FEATURE_AT_ZERO.matcher(l).matches()), describe.toString());
    }
}
