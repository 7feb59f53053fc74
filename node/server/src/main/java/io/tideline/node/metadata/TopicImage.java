package io.tideline.node.metadata;

import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/** One topic in a {@link MetadataImage}: its id and name, config overrides and partitions. Immutable. */
public record TopicImage(TopicRecord topic, SortedMap<String, String> configs, SortedMap<Integer, PartitionRecord> partitions) {

    public TopicImage {
        configs = Collections.unmodifiableSortedMap(new TreeMap<>(configs));
        partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    }

    public String name() {
        return topic.getName();
    }

    public String id() {
        return topic.getTopicId();
    }

    public PartitionRecord partition(int partition) {
        return partitions.get(partition);
    }

    TopicImage withConfigs(SortedMap<String, String> newConfigs) {
        return new TopicImage(topic, newConfigs, partitions);
    }
}
