package io.tideline.replication.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicationSmokeTest {
    @TempDir
    Path dir;

    @Test
    void acksAllProduceReplicatesToAllThree() throws Exception {
        TopicPartition tp = new TopicPartition("orders", 0);
        try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("test", 2);
             ReplicationTestCluster cluster = new ReplicationTestCluster(3, dir, Time.SYSTEM, scheduler, Map.of(),
                     Map.of("replica.fetch.wait.max.ms", 200))) {
            cluster.createPartition(tp, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
            for (int i = 0; i < 20; i++) {
                ProduceResult r = cluster.produce(tp, -1, 10_000, "v" + i).get().get(tp);
                assertEquals(Errors.NONE, r.error(), r.message());
                assertEquals(i, r.baseOffset());
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cluster.brokers().stream()
                    .allMatch(b -> b.log(tp).highWatermark() == 20 && b.log(tp).logEndOffset() == 20));
        }
    }
}
