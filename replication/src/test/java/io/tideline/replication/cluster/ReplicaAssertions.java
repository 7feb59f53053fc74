package io.tideline.replication.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.TopicPartition;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/** Assertions that compare the replicas of one partition across the brokers of a {@link ReplicationTestCluster}. */
final class ReplicaAssertions {
    private ReplicaAssertions() {
    }

    /**
     * Every broker's replica of {@code tp} is the leader's, byte for byte: the same log start and end offsets, the
     * same batches, the leader epochs {@code expectedEpochs}, and the same leader-epoch-checkpoint file.
     */
    static void assertReplicasIdentical(ReplicationTestCluster cluster, TopicPartition tp,
                                        List<EpochEntry> expectedEpochs) throws IOException {
        Log reference = cluster.leader(tp).log(tp);
        byte[] referenceBytes = LogContents.batchBytes(reference);
        byte[] referenceCheckpoint = Files.readAllBytes(reference.dir().resolve(LogFileNames.LEADER_EPOCH_CHECKPOINT));
        for (TestBroker broker : cluster.brokers()) {
            Log log = broker.log(tp);
            assertEquals(reference.logStartOffset(), log.logStartOffset(), "log start offset of broker " + broker.id);
            assertEquals(reference.logEndOffset(), log.logEndOffset(), "log end offset of broker " + broker.id);
            assertArrayEquals(referenceBytes, LogContents.batchBytes(log), "batch bytes of broker " + broker.id);
            assertEquals(expectedEpochs, log.leaderEpochEntries(), "leader epochs of broker " + broker.id);
            assertArrayEquals(referenceCheckpoint,
                    Files.readAllBytes(log.dir().resolve(LogFileNames.LEADER_EPOCH_CHECKPOINT)),
                    "leader-epoch-checkpoint of broker " + broker.id);
        }
    }
}
