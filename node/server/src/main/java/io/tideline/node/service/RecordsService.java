package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.server.ReplicaManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteRecords on the partitions this broker leads (clients send each partition to its leader, as Kafka's admin
 * client does), docs/behaviours.md B23-B25: -1 is the high watermark, 0 a no-op, below -1
 * OFFSET_OUT_OF_RANGE, NOT_LEADER_OR_FOLLOWER off the leader, timeout 0 the default 30 s. Stateless; thread-safe.
 */
public final class RecordsService {
    private static final Logger log = LoggerFactory.getLogger(RecordsService.class);
    static final int DEFAULT_TIMEOUT_MS = 30_000;

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;

    /** Delete the records of one partition below {@code offset}. */
    public record DeleteRecordsTarget(String topic, int partition, long offset) {
    }

    /** The low watermark reached, -1 on errors (B23). */
    public record DeleteRecordsResult(String topic, int partition, ApiError error, long lowWatermark) {
    }

    public RecordsService(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager) {
        this.brokerId = brokerId;
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
    }

    /**
     * One result per partition: first the ones refused before anything is deleted, in request order, then the
     * others in request order. The future never fails.
     */
    public CompletableFuture<List<DeleteRecordsResult>> deleteRecords(List<DeleteRecordsTarget> partitions,
                                                                      int timeoutMs) {
        MetadataImage current = image.get();
        List<DeleteRecordsResult> out = new ArrayList<>();
        Map<TopicPartition, Long> targets = new LinkedHashMap<>();
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(partitions, DeleteRecordsTarget::topic,
                DeleteRecordsTarget::partition);
        boolean badTimeout = timeoutMs < 0 || timeoutMs > RequestChecks.MAX_PRODUCE_TIMEOUT_MS;
        for (DeleteRecordsTarget p : partitions) {
            RequestChecks.Check check = badTimeout
                    ? new RequestChecks.Check(Errors.INVALID_REQUEST, "timeout_ms must be within [0, "
                    + RequestChecks.MAX_PRODUCE_TIMEOUT_MS + "], got " + timeoutMs)
                    : RequestChecks.partition(current, p.topic(), p.partition(), listedTwice);
            if (check.error() == Errors.NONE && p.offset() < -1) {
                check = new RequestChecks.Check(Errors.OFFSET_OUT_OF_RANGE,
                        "offset must be -1 (the high watermark), 0 or positive, got " + p.offset());
            }
            if (check.error() != Errors.NONE) {
                out.add(new DeleteRecordsResult(p.topic(), p.partition(), new ApiError(check.error(), check.message()),
                        -1));
                continue;
            }
            targets.put(new TopicPartition(p.topic(), p.partition()), p.offset());
        }
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(out);
        }
        int timeout = timeoutMs == 0 ? DEFAULT_TIMEOUT_MS : timeoutMs;
        return replicaManager.deleteRecords(targets, timeout).handle((results, e) -> {
            if (e != null) {
                log.error("DeleteRecords failed", e);
            }
            for (TopicPartition tp : targets.keySet()) {
                io.tideline.replication.server.DeleteRecordsPartitionResult r = e != null ? null : results.get(tp);
                if (r == null) {
                    out.add(new DeleteRecordsResult(tp.topic(), tp.partition(), new ApiError(Errors.UNKNOWN_SERVER_ERROR,
                            e == null ? "no result" : String.valueOf(e.getMessage())), -1));
                } else {
                    String message = r.message() == null ? null : r.message()
                            + (r.error() == Errors.NOT_LEADER_OR_FOLLOWER ? " (asked broker " + brokerId + ")" : "");
                    out.add(new DeleteRecordsResult(tp.topic(), tp.partition(), new ApiError(r.error(), message),
                            r.lowWatermark()));
                }
            }
            return out;
        });
    }
}
