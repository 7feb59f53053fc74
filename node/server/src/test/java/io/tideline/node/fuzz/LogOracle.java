package io.tideline.node.fuzz;

import io.tideline.common.TopicPartition;
import io.tideline.node.server.TidelineNode;
import io.tideline.store.log.Log;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fuzzer's oracle for logs (docs/testing.md, "The listener fuzzer"; docs/behaviours.md B160): a snapshot of
 * every local partition's log start and log end offset before a request and after it, and the changes the request
 * was entitled to make, taken from what it asked and what the node answered. Any other difference is a failure.
 *
 * <ul>
 *   <li>A log end offset may grow only on a partition a Produce was answered NONE for (or, when no answer could
 *       be read, an acks=0 Produce or one that timed out, on a partition it named); it never shrinks.</li>
 *   <li>A log start offset may rise only on a partition a DeleteRecords was answered NONE or REQUEST_TIMED_OUT
 *       for, to at most the low watermark answered (or, unanswered, on a partition it named); it never falls.</li>
 *   <li>A partition that appears (a topic or partitions created) starts empty at offset 0, unless a Produce was
 *       entitled to write to it.</li>
 *   <li>A partition disappears only with its topic: after a DeleteTopics was answered NONE for it (a step's, or
 *       the fuzzer's own tidying), or, for a topic no fixture, once the topic has left the node's metadata image.
 *       A topic name stays deleted until the fuzzer makes it again, after its old logs are gone.</li>
 * </ul>
 */
final class LogOracle {
    /** One partition's bounds. */
    record Offsets(long logStart, long logEnd) {
        @Override
        public String toString() {
            return "[" + logStart + ", " + logEnd + ")";
        }
    }

    /** What one request may change; filled while its answer is read. Not thread-safe. */
    static final class Permits {
        private final Set<TopicPartition> mayAppend = new HashSet<>();
        private final Map<TopicPartition, Long> mayDeleteBelow = new HashMap<>();
        private final Set<String> mayDeleteTopic = new HashSet<>();

        /** A partition that cannot exist (a negative number, no topic) has no log, so there is nothing to permit. */
        void append(String topic, int partition) {
            if (topic != null && partition >= 0) {
                mayAppend.add(new TopicPartition(topic, partition));
            }
        }

        /** The log start offset may rise to {@code lowWatermark} at most ({@code Long.MAX_VALUE}: any). */
        void deleteRecords(String topic, int partition, long lowWatermark) {
            if (topic != null && partition >= 0) {
                mayDeleteBelow.merge(new TopicPartition(topic, partition), lowWatermark, Math::max);
            }
        }

        Set<String> topicsDeleted() {
            return mayDeleteTopic;
        }

        void deleteTopic(String topic) {
            mayDeleteTopic.add(topic);
        }

        void addAll(Permits other) {
            mayAppend.addAll(other.mayAppend);
            other.mayDeleteBelow.forEach((tp, lw) -> mayDeleteBelow.merge(tp, lw, Math::max));
            mayDeleteTopic.addAll(other.mayDeleteTopic);
        }

        boolean isEmpty() {
            return mayAppend.isEmpty() && mayDeleteBelow.isEmpty() && mayDeleteTopic.isEmpty();
        }

        @Override
        public String toString() {
            return "append " + mayAppend + ", delete records " + mayDeleteBelow + ", delete topics " + mayDeleteTopic;
        }
    }

    private LogOracle() {
    }

    static Map<TopicPartition, Offsets> snapshot(TidelineNode node) {
        Map<TopicPartition, Offsets> out = new TreeMap<>();
        for (Log log : node.logManager().allLogs()) {
            out.put(log.topicPartition(), new Offsets(log.logStartOffset(), log.logEndOffset()));
        }
        return out;
    }

    /** Every difference between the snapshots that {@code permits} does not allow, one line each. */
    static List<String> violations(Map<TopicPartition, Offsets> before, Map<TopicPartition, Offsets> after,
                                   Permits permits, Set<String> topicsInImage, Set<String> fixtures,
                                   Set<String> topicsDeletedByAnswer) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<TopicPartition, Offsets> e : after.entrySet()) {
            TopicPartition tp = e.getKey();
            Offsets now = e.getValue();
            Offsets was = before.get(tp);
            if (was == null) {
                if ((now.logStart() != 0 || now.logEnd() != 0) && !permits.mayAppend.contains(tp)) {
                    out.add(tp + " appeared holding " + now + ", not empty");
                }
                continue;
            }
            if (now.logEnd() < was.logEnd()) {
                out.add(tp + " log end offset went back from " + was.logEnd() + " to " + now.logEnd());
            } else if (now.logEnd() > was.logEnd() && !permits.mayAppend.contains(tp)) {
                out.add(tp + " log end offset grew from " + was.logEnd() + " to " + now.logEnd()
                        + " without a Produce answered NONE for it");
            }
            if (now.logStart() < was.logStart()) {
                out.add(tp + " log start offset went back from " + was.logStart() + " to " + now.logStart());
            } else if (now.logStart() > was.logStart()) {
                Long allowed = permits.mayDeleteBelow.get(tp);
                if (allowed == null) {
                    out.add(tp + " log start offset rose from " + was.logStart() + " to " + now.logStart()
                            + " without a DeleteRecords answered NONE for it");
                } else if (now.logStart() > allowed) {
                    out.add(tp + " log start offset rose to " + now.logStart() + ", above the low watermark "
                            + allowed + " the DeleteRecords answer gave");
                }
            }
        }
        for (TopicPartition tp : before.keySet()) {
            if (after.containsKey(tp) || permits.mayDeleteTopic.contains(tp.topic())
                    || topicsDeletedByAnswer.contains(tp.topic())) {
                continue; // a deleted topic's logs go before the image drops it, seconds later for many partitions
            }
            if (topicsInImage.contains(tp.topic())) {
                out.add(tp + " disappeared while its topic is still in the metadata image");
            } else if (fixtures.contains(tp.topic())) {
                out.add(tp + " of a fixture topic disappeared without a DeleteTopics answered NONE for it");
            }
        }
        return out;
    }
}
