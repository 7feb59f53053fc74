package io.tideline.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.config.BrokerConfigResolver.Described;
import io.tideline.node.config.BrokerConfigResolver.Source;
import io.tideline.node.config.BrokerConfigResolver.Synonym;
import io.tideline.store.config.LogConfig;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Kafka's precedence for dynamic broker configs (docs/behaviours.md B56) and its describe synonyms. */
class BrokerConfigResolverTest {
    private static final Map<String, Object> STATIC = Map.of("log.dirs", "/tmp/unused", "log.retention.ms", "600000",
            "log.segment.bytes", "4096", "leader.replication.throttled.rate", "5000");

    private final BrokerConfigResolver resolver = new BrokerConfigResolver(STATIC);

    @Test
    void perBrokerBeatsTheClusterDefaultWhichBeatsStaticWhichBeatsTheBuiltInDefault() {
        BrokerConfigResolver.Effective none = resolver.resolve(Map.of(), Map.of());
        assertEquals(600_000L, none.logDefaults().retentionMs(), "static");
        assertEquals(4096, none.logDefaults().segmentBytes(), "static");
        assertEquals(LogConfig.RETENTION_BYTES_DEFAULT, none.logDefaults().retentionBytes(), "built-in");
        assertEquals(5000L, none.leaderThrottledRate());
        assertEquals(Long.MAX_VALUE, none.followerThrottledRate());

        BrokerConfigResolver.Effective withDefault = resolver.resolve(
                Map.of("log.retention.ms", "5000", "follower.replication.throttled.rate", "100"), Map.of());
        assertEquals(5000L, withDefault.logDefaults().retentionMs(), "the cluster default beats static");
        assertEquals(100L, withDefault.followerThrottledRate());

        BrokerConfigResolver.Effective withOwn = resolver.resolve(Map.of("log.retention.ms", "5000"),
                Map.of("log.retention.ms", "7000", "leader.replication.throttled.rate", "42"));
        assertEquals(7000L, withOwn.logDefaults().retentionMs(), "the broker's own beats the default");
        assertEquals(42L, withOwn.leaderThrottledRate());
        assertEquals(4096, withOwn.logDefaults().segmentBytes(), "keys no dynamic source sets stay static");

        assertEquals(1, none.minInsyncReplicas(), "built-in");
        assertEquals(2, resolver.resolve(Map.of("min.insync.replicas", "2"), Map.of()).minInsyncReplicas());
        assertEquals(3, resolver.resolve(Map.of("min.insync.replicas", "2"), Map.of("min.insync.replicas", "3"))
                .minInsyncReplicas());
    }

    @Test
    void synonymsResolveOverTheMergedSettingsSoMillisecondsFromAnySourceBeatHours() {
        // Kafka layers the sources first, then log.retention.ms > minutes > hours: a static ms wins over a
        // dynamic hours; a dynamic ms wins over a static ms.
        assertEquals(600_000L, resolver.resolve(Map.of("log.retention.hours", "1"), Map.of()).logDefaults().retentionMs());
        BrokerConfigResolver hoursOnly = new BrokerConfigResolver(Map.of("log.dirs", "/tmp/unused", "log.retention.hours", "5"));
        assertEquals(60_000L, hoursOnly.resolve(Map.of(), Map.of("log.retention.minutes", "1")).logDefaults().retentionMs());
        assertEquals(3_600_000L, hoursOnly.resolve(Map.of("log.retention.hours", "1"), Map.of()).logDefaults().retentionMs());
        assertEquals(-1L, hoursOnly.resolve(Map.of("log.retention.ms", "-1"), Map.of()).logDefaults().retentionMs());
    }

    @Test
    void describeListsEachSourceInPrecedenceOrderAndTheValueIsTheFirst() {
        Map<String, Described> byName = byName(resolver.describe(Map.of("log.retention.ms", "5000"),
                Map.of("log.retention.ms", "7000"), true));
        Described retention = byName.get("log.retention.ms");
        assertEquals("7000", retention.value());
        assertEquals(Source.DYNAMIC_BROKER_CONFIG, retention.source());
        assertEquals(List.of(new Synonym("log.retention.ms", "7000", Source.DYNAMIC_BROKER_CONFIG),
                new Synonym("log.retention.ms", "5000", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),
                new Synonym("log.retention.ms", "600000", Source.STATIC_BROKER_CONFIG),
                new Synonym("log.retention.hours", "168", Source.DEFAULT_CONFIG)), retention.synonyms());

        Described hours = byName.get("log.retention.hours");
        assertEquals("168", hours.value());
        assertEquals(Source.DEFAULT_CONFIG, hours.source());
        assertEquals(List.of(new Synonym("log.retention.hours", "168", Source.DEFAULT_CONFIG)), hours.synonyms(),
                "entries before the first one for the key itself are dropped, as in Kafka");
        Described minutes = byName.get("log.retention.minutes");
        assertNull(minutes.value(), "no source sets it");
        assertEquals(List.of(), minutes.synonyms(), "hours is listed only after a minutes entry, and there is none");
        assertEquals(DynamicBrokerConfigs.names(), byName.keySet(), "the broker's view lists every dynamic key");
    }

    @Test
    void theClusterDefaultViewListsOnlyTheDefaultsKeysWithoutPerBrokerSynonyms() {
        List<Described> described = resolver.describe(Map.of("log.retention.ms", "5000"),
                Map.of("log.retention.ms", "7000"), false);
        assertEquals(1, described.size());
        Described d = described.get(0);
        assertEquals("5000", d.value());
        assertEquals(Source.DYNAMIC_DEFAULT_BROKER_CONFIG, d.source());
        assertTrue(d.synonyms().stream().noneMatch(s -> s.source() == Source.DYNAMIC_BROKER_CONFIG), d.toString());
    }

    private static Map<String, Described> byName(List<Described> list) {
        return list.stream().collect(Collectors.toMap(Described::name, Function.identity()));
    }
}
