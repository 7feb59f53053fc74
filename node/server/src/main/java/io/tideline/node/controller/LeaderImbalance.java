package io.tideline.node.controller;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which partitions an automatic preferred-leader balancing round moves back (docs/behaviours.md B63).
 * Per broker B: the partitions whose preferred (first) replica is B, and among them those led by
 * another broker or by none. When that ratio is above {@code leader.imbalance.per.broker.percentage},
 * every such partition whose preferred replica is registered, unfenced, not shutting down and in the
 * ISR is a candidate; the others wait for a later round. A pure function of the image.
 */
public final class LeaderImbalance {

    /** One broker's count: partitions it should lead, and those it does not lead. */
    public record BrokerImbalance(int brokerId, int preferred, int notLed) {
        public double ratio() {
            return preferred == 0 ? 0 : (double) notLed / preferred;
        }
    }

    /** The round's view: per broker (sorted by id), and the partitions to elect (by preferred broker, then topic and partition). */
    public record Plan(List<BrokerImbalance> brokers, List<TopicPartitionRef> elect) {
    }

    private LeaderImbalance() {
    }

    public static Plan plan(MetadataImage image, int imbalancePercentage) {
        Map<Integer, int[]> counts = new TreeMap<>();
        Map<Integer, List<TopicPartitionRef>> movable = new TreeMap<>();
        for (TopicImage t : image.topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                if (p.getReplicasCount() == 0) {
                    continue;
                }
                int preferred = p.getReplicas(0);
                int[] c = counts.computeIfAbsent(preferred, b -> new int[2]);
                c[0]++;
                if (p.getLeader() == preferred) {
                    continue;
                }
                c[1]++;
                if (p.getIsrList().contains(preferred) && LeaderElection.eligible(image, preferred, Set.of())) {
                    movable.computeIfAbsent(preferred, b -> new ArrayList<>()).add(TopicPartitionRef.newBuilder()
                            .setTopic(t.name()).setPartition(p.getPartition()).build());
                }
            }
        }
        List<BrokerImbalance> brokers = new ArrayList<>();
        List<TopicPartitionRef> elect = new ArrayList<>();
        double threshold = imbalancePercentage / 100.0;
        counts.forEach((broker, c) -> {
            BrokerImbalance b = new BrokerImbalance(broker, c[0], c[1]);
            brokers.add(b);
            // Strictly above, as Kafka compares: 1 of 10 at the default 10 % is not an imbalance.
            if (b.ratio() > threshold) {
                elect.addAll(movable.getOrDefault(broker, List.of()));
            }
        });
        return new Plan(List.copyOf(brokers), List.copyOf(elect));
    }
}
