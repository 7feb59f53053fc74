package io.tideline.cluster.netns;

import io.tideline.cluster.harness.ReplicaLogReader;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.dir.MetaProperties;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import com.codahale.metrics.MetricRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * Reads a replica's log from the log dir of a node process that has stopped: the client API fetches from
 * leaders only, so a replica's own copy is read from its files, through a {@link LogManager} as the node would
 * open them (its checkpoints give the log start offset and high watermark). The mock scheduler never runs
 * retention or checkpoint tasks, so the read changes nothing in the log.
 */
public final class StoppedReplicaLogs {
    private StoppedReplicaLogs() {
    }

    /** Node {@code node}'s copy of {@code tp}, from its log start offset to its checkpointed high watermark. */
    public static ReplicaLogReader.Snapshot read(NamespaceNode node, TopicPartition tp) throws IOException {
        if (node.isAlive()) {
            throw new IllegalStateException(node + " still runs: stop it before reading its log dir");
        }
        Path dir = node.logDir();
        MetaProperties meta = MetaProperties.read(dir).orElseThrow(
                () -> new IllegalStateException("no meta.properties in " + dir));
        MockTime time = new MockTime();
        try (LogManager manager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.toString())),
                meta.clusterId(), node.id(), time, new MockScheduler(time), new MetricRegistry(), new Random())) {
            manager.startup();
            Log log = manager.getLog(tp).orElseThrow(() -> new IllegalStateException(node + " has no log of " + tp));
            return ReplicaLogReader.read(log);
        }
    }
}
