package io.tideline.node.kafka.data;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.node.kafka.SliceRecords;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;

/**
 * What Fetch handed to the listener as open segment bytes ({@link SliceRecords}) rather than heap copies: the
 * evidence that the zero-copy path is taken. The listener's writer sends every such slice as a file region
 * (sendfile), so these are also the bytes that leave by file transfer, less any whose connection closed first.
 * Published as gauges {@link #BYTES} and {@link #PARTITIONS} (no Kafka metric has this meaning). Thread-safe.
 */
public final class FetchStats {
    public static final String BYTES = "tideline.kafka:type=FetchFileTransfer,name=BytesHandedOver";
    public static final String PARTITIONS = "tideline.kafka:type=FetchFileTransfer,name=PartitionsHandedOver";

    private final LongAdder slices = new LongAdder();
    private final LongAdder sliceBytes = new LongAdder();

    /** Stats published in {@code registry}. */
    public static FetchStats registeredIn(MetricRegistry registry) {
        FetchStats stats = new FetchStats();
        registry.register(BYTES, (Gauge<Long>) stats::sliceBytesHandedOver);
        registry.register(PARTITIONS, (Gauge<Long>) stats::slicesHandedOver);
        return stats;
    }

    void handedOver(FetchResponseData response) {
        for (FetchableTopicResponse t : response.responses()) {
            for (PartitionData p : t.partitions()) {
                if (p.records() instanceof SliceRecords slice) {
                    slices.increment();
                    sliceBytes.add(slice.sizeInBytes());
                }
            }
        }
    }

    /** Partitions answered with segment file bytes for the listener to send by file transfer. */
    public long slicesHandedOver() {
        return slices.sum();
    }

    /** The bytes of those slices. */
    public long sliceBytesHandedOver() {
        return sliceBytes.sum();
    }
}
