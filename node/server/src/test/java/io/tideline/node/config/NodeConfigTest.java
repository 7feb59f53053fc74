package io.tideline.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeConfigTest {

    private static Map<String, Object> props(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "1@localhost:9093,2@localhost:9094,3@localhost:9095");
        props.put("metadata.log.dir", "/var/tideline/meta");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static ConfigException invalid(Object... keyValues) {
        return assertThrows(ConfigException.class, () -> NodeConfig.fromMap(props(keyValues)));
    }

    @Test
    void minimalConfigGetsKafkaDefaults() {
        NodeConfig config = NodeConfig.fromMap(props());
        assertEquals(1, config.nodeId());
        assertEquals(EnumSet.of(ProcessRole.BROKER, ProcessRole.CONTROLLER), config.roles());
        assertTrue(config.isBroker());
        assertTrue(config.isController());
        assertEquals(Path.of("/var/tideline/meta"), config.metadataLogDir());
        assertEquals("tideline", config.clusterId());
        assertEquals(2000L, config.brokerHeartbeatIntervalMs());
        assertEquals(9000L, config.brokerSessionTimeoutMs());
        assertFalse(config.uncleanLeaderElectionEnable());
        assertEquals("", config.brokerRack());
        assertEquals(1000L, config.metadataSnapshotEntries());
        assertEquals(500L, config.metadataFetchIntervalMs());
        assertTrue(config.isDefault("broker.session.timeout.ms"));
        assertFalse(config.isDefault("node.id"));
    }

    @Test
    void customValuesAreParsed() {
        NodeConfig config = NodeConfig.fromMap(props("cluster.id", "prod-eu", "broker.heartbeat.interval.ms", "100",
                "broker.session.timeout.ms", 400L, "unclean.leader.election.enable", "true", "broker.rack", "az-1",
                "metadata.snapshot.entries", "50", "metadata.fetch.interval.ms", "20"));
        assertEquals("prod-eu", config.clusterId());
        assertEquals(100L, config.brokerHeartbeatIntervalMs());
        assertEquals(400L, config.brokerSessionTimeoutMs());
        assertTrue(config.uncleanLeaderElectionEnable());
        assertEquals("az-1", config.brokerRack());
        assertEquals(50L, config.metadataSnapshotEntries());
        assertEquals(20L, config.metadataFetchIntervalMs());
    }

    @Test
    void votersAreParsedInIdOrderWithHostnamesIpv4AndIpv6() {
        NodeConfig config = NodeConfig.fromMap(props("node.id", "3",
                "controller.quorum.voters", "3@ctrl-3.example.com:9093, 1@10.0.0.1:19093,2@[::1]:9093"));
        assertEquals(List.of(1, 2, 3), List.copyOf(config.voters().keySet()));
        InetSocketAddress ipv4 = config.voters().get(1);
        assertEquals("10.0.0.1", ipv4.getHostString());
        assertEquals(19093, ipv4.getPort());
        assertEquals("::1", config.voters().get(2).getHostString());
        InetSocketAddress named = config.voters().get(3);
        assertEquals("ctrl-3.example.com", named.getHostString());
        assertEquals(9093, named.getPort());
        // Parsing never resolves: a voter that is down or not yet in DNS must not fail the config.
        assertTrue(named.isUnresolved());
        assertThrows(UnsupportedOperationException.class, () -> config.voters().put(9, ipv4));
    }

    @Test
    void malformedVoterEntryNamesTheKeyAndTheEntry() {
        for (String bad : List.of("localhost:9093", "x@localhost:9093", "-1@localhost:9093", "1@localhost",
                "1@:9093", "1@localhost:0", "1@localhost:65536", "1@localhost:port", "1@::1:9093", "@h:1")) {
            ConfigException e = invalid("controller.quorum.voters", "2@localhost:9094," + bad + ",1@localhost:9093",
                    "process.roles", "broker", "node.id", "7");
            assertEquals("controller.quorum.voters", e.key(), bad);
            assertTrue(e.getMessage().contains("controller.quorum.voters"), e.getMessage());
            assertTrue(e.getMessage().contains(bad), bad + " -> " + e.getMessage());
        }
    }

    @Test
    void duplicateVoterIdAndEmptyVotersAreRefused() {
        ConfigException dup = invalid("controller.quorum.voters", "1@a:1,1@b:2");
        assertTrue(dup.getMessage().contains("listed twice"), dup.getMessage());
        assertEquals("controller.quorum.voters", invalid("controller.quorum.voters", "").key());
        assertEquals("controller.quorum.voters", invalid("controller.quorum.voters", "1@a:1,").key());
    }

    @Test
    void missingRequiredKeysAreNamed() {
        for (String key : List.of("node.id", "process.roles", "controller.quorum.voters", "metadata.log.dir")) {
            Map<String, Object> props = props();
            props.remove(key);
            ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.fromMap(props));
            assertEquals(key, e.key());
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void rolesMustBeKnownNonEmptyAndDistinct() {
        assertTrue(invalid("process.roles", "").getMessage().contains("process.roles"));
        ConfigException unknown = invalid("process.roles", "broker,voter");
        assertTrue(unknown.getMessage().contains("voter"), unknown.getMessage());
        ConfigException twice = invalid("process.roles", "controller,controller");
        assertTrue(twice.getMessage().contains("twice"), twice.getMessage());
        assertEquals("process.roles", invalid("process.roles", "Broker").key());
    }

    @Test
    void nodeIdMustBeANonNegativeInt() {
        assertEquals("node.id", invalid("node.id", "-1").key());
        assertEquals("node.id", invalid("node.id", "one").key());
        assertEquals("node.id", invalid("node.id", "3000000000").key());
    }

    @Test
    void controllerMustBeAmongTheVoters() {
        ConfigException e = invalid("node.id", "4");
        assertEquals("controller.quorum.voters", e.key());
        assertTrue(e.getMessage().contains("Node 4 has the controller role"), e.getMessage());
        assertTrue(e.getMessage().contains("[1, 2, 3]"), e.getMessage());
    }

    @Test
    void brokerOnlyNodeMustNotBeAVoter() {
        ConfigException e = invalid("process.roles", "broker");
        assertEquals("controller.quorum.voters", e.key());
        NodeConfig broker = NodeConfig.fromMap(props("process.roles", "broker", "node.id", "4"));
        assertTrue(broker.isBroker());
        assertFalse(broker.isController());
        assertEquals(EnumSet.of(ProcessRole.BROKER), broker.roles());
        NodeConfig controller = NodeConfig.fromMap(props("process.roles", "controller"));
        assertFalse(controller.isBroker());
    }

    @Test
    void sessionTimeoutMustExceedTheHeartbeatInterval() {
        ConfigException equal = invalid("broker.heartbeat.interval.ms", "3000", "broker.session.timeout.ms", "3000");
        assertEquals("broker.session.timeout.ms", equal.key());
        assertTrue(equal.getMessage().contains("broker.heartbeat.interval.ms"), equal.getMessage());
        assertEquals("broker.session.timeout.ms", invalid("broker.session.timeout.ms", "1000").key());
        NodeConfig ok = NodeConfig.fromMap(props("broker.heartbeat.interval.ms", "3000",
                "broker.session.timeout.ms", "3001"));
        ok.validate();
        assertEquals(3001L, ok.brokerSessionTimeoutMs());
    }

    @Test
    void badSingleValuesAreRefused() {
        assertEquals("broker.heartbeat.interval.ms", invalid("broker.heartbeat.interval.ms", "0").key());
        assertEquals("metadata.snapshot.entries", invalid("metadata.snapshot.entries", "0").key());
        assertEquals("metadata.fetch.interval.ms", invalid("metadata.fetch.interval.ms", "0").key());
        assertEquals("unclean.leader.election.enable", invalid("unclean.leader.election.enable", "yes").key());
        assertEquals("metadata.log.dir", invalid("metadata.log.dir", " ").key());
        assertEquals("cluster.id", invalid("cluster.id", "").key());
    }

    @Test
    void unknownKeysAreReportedNotRefused() {
        NodeConfig config = NodeConfig.fromMap(props("log.dirs", "/data", "brokr.rack", "x"));
        assertEquals(Set.of("brokr.rack", "log.dirs"), config.unknownKeys());
    }

    @Test
    void readsAPropertiesFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, String.join("\n",
                "# a controller and broker",
                "node.id=2",
                "process.roles=broker,controller",
                "controller.quorum.voters=1@127.0.0.1:9093,2@127.0.0.1:9094",
                "metadata.log.dir=" + dir.resolve("meta").toString().replace("\\", "\\\\"),
                "broker.rack=rack-é",
                "log.dirs=/data"), StandardCharsets.UTF_8);
        NodeConfig config = NodeConfig.fromProperties(file);
        assertEquals(2, config.nodeId());
        assertEquals(dir.resolve("meta"), config.metadataLogDir());
        assertEquals("rack-é", config.brokerRack());
        assertEquals(Set.of("log.dirs"), config.unknownKeys());
        assertEquals(2, config.voters().size());
    }
}
