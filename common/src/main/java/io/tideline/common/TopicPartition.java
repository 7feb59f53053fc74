package io.tideline.common;

import java.util.Objects;

/** A topic name and partition number; its directory name is {@code <topic>-<partition>}. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
    }

    /** Parses a partition directory name; the partition is after the last '-' (topics may contain '-'). */
    public static TopicPartition fromDirectoryName(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            throw new IllegalArgumentException("not a partition directory name: " + name);
        }
        return new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1)));
    }

    public String directoryName() {
        return topic + "-" + partition;
    }

    @Override
    public int compareTo(TopicPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return directoryName();
    }
}
