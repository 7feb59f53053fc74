package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.util.List;
import java.util.Map;

/**
 * Looks a topic up before produce or consume starts, so that an unknown topic or partition is one line
 * and a quick exit instead of a client that waits for the topic to appear (max.block.ms, or polls that
 * stay empty until --timeout-ms).
 */
final class TopicCheck {
    private static final long LEADER_POLL_MS = 50;

    private TopicCheck() {
    }

    /** The topic's partition count; refuses an unknown topic and a {@code partition} it does not have. */
    static int partitionCount(Map<String, Object> adminSettings, String topic, Integer partition, Time time) {
        TopicDescription d;
        try (TidelineAdmin admin = new TidelineAdmin(adminSettings, time, ChannelFactory.plaintext())) {
            d = admin.describeTopics(List.of(topic)).get(0);
        }
        if (d.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
            throw CliException.failed("unknown topic '" + topic + "'");
        }
        if (d.error() != Errors.NONE) {
            throw CliException.failed("topic '" + topic + "': " + d.error() + ": " + d.message());
        }
        int count = d.partitions().size();
        if (partition != null && partition >= count) {
            throw CliException.failed("topic '" + topic + "' has " + count + " partition" + (count == 1 ? "" : "s")
                    + " (0.." + (count - 1) + "); there is no partition " + partition);
        }
        return count;
    }

    /**
     * Null once the topic shows {@code partitions} partitions (-1: any number, the broker chose it), each with a
     * leader; otherwise what was still missing after {@code timeoutMs}. A topic just created has no leaders for a moment, and a
     * client that starts at once would spend its first requests retrying.
     */
    static String awaitLeaders(TidelineAdmin client, String topic, int partitions, long timeoutMs, Time time) {
        long deadline = time.milliseconds() + timeoutMs;
        while (true) {
            TopicDescription d = client.describeTopics(List.of(topic)).get(0);
            long leaderless = d.partitions().stream().filter(p -> p.leader() < 0).count();
            // partitions -1: the broker chose the count (num.partitions); a topic's partitions arrive in one image.
            boolean all = partitions < 0 ? !d.partitions().isEmpty() : d.partitions().size() == partitions;
            if (d.error() == Errors.NONE && all && leaderless == 0) {
                return null;
            }
            String missing = d.error() != Errors.NONE
                    ? "the broker does not show topic '" + topic + "' yet (" + d.error() + ")"
                    : leaderless + " of " + d.partitions().size() + " partitions of '" + topic + "' have no leader yet";
            if (time.milliseconds() >= deadline) {
                return missing + " after " + timeoutMs + " ms";
            }
            time.sleep(LEADER_POLL_MS);
        }
    }
}
