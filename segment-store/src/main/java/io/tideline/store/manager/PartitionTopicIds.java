package io.tideline.store.manager;

import io.tideline.common.TopicPartition;
import io.tideline.store.checkpoint.PartitionMetadataFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic id of each open log, as its directory's {@code partition.metadata} says, and the rule that decides
 * whether a log on disk belongs to the topic the metadata names (docs/behaviours.md B130-B132).
 *
 * <p>Thread-safety: safe for concurrent use; the manager calls {@link #check} under its own lock, so one log is
 * never checked twice at once.
 */
final class PartitionTopicIds {
    private static final Logger log = LoggerFactory.getLogger(PartitionTopicIds.class);

    /** What {@link #check} found. */
    enum Verdict {
        /** The log has the metadata's id, or no id is asked for. */
        SAME,
        /** The log had no id (written before ids were, or its file is unreadable): it takes the metadata's now. */
        ADOPTED,
        /** The log has another topic's id: it must never be served (B131). */
        OTHER_TOPIC
    }

    private final Map<TopicPartition, String> ids = new ConcurrentHashMap<>();

    /** Reads the id of a log found on disk. A missing file leaves none; an unreadable one too, with a warning. */
    void load(TopicPartition tp, Path partitionDir) {
        try {
            new PartitionMetadataFile(partitionDir).read().ifPresent(id -> ids.put(tp, id));
        } catch (IOException e) {
            log.warn("The topic id of {} cannot be read ({}); the log takes the id the metadata gives it", tp,
                    e.getMessage());
        }
    }

    /** Writes {@code topicId} into a new log's directory, before the log has any data. */
    void record(TopicPartition tp, Path partitionDir, String topicId) throws IOException {
        if (topicId == null || topicId.isEmpty()) {
            return;
        }
        new PartitionMetadataFile(partitionDir).write(topicId);
        ids.put(tp, topicId);
    }

    /**
     * Whether the open log of {@code tp} in {@code partitionDir} is the log of topic {@code topicId}; a log without
     * an id adopts it (its file is written). A null or empty {@code topicId} (a caller without metadata) checks
     * nothing.
     */
    Verdict check(TopicPartition tp, Path partitionDir, String topicId) throws IOException {
        if (topicId == null || topicId.isEmpty()) {
            return Verdict.SAME;
        }
        String onDisk = ids.get(tp);
        if (onDisk == null) {
            record(tp, partitionDir, topicId);
            log.info("The log of {} has no topic id; it takes the metadata's, {}", tp, topicId);
            return Verdict.ADOPTED;
        }
        return onDisk.equals(topicId) ? Verdict.SAME : Verdict.OTHER_TOPIC;
    }

    Optional<String> get(TopicPartition tp) {
        return Optional.ofNullable(ids.get(tp));
    }

    void remove(TopicPartition tp) {
        ids.remove(tp);
    }
}
