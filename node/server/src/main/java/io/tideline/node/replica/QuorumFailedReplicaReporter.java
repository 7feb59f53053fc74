package io.tideline.node.replica;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.server.FailedReplicaReporter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports FAILED replicas (and their recovery) to the controller with ReportFailedReplicas, so operators
 * see the reason in the partition's metadata. Fire and forget: a lost report is logged; the replica's own
 * status stays the source of truth on this broker.
 */
public final class QuorumFailedReplicaReporter implements FailedReplicaReporter {
    private static final Logger log = LoggerFactory.getLogger(QuorumFailedReplicaReporter.class);

    private final ControllerClient client;
    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final Function<String, Optional<String>> topicIds;

    /** @param topicIds topic name to id, from the broker's current metadata image */
    public QuorumFailedReplicaReporter(ControllerClient client, int brokerId, LongSupplier brokerEpoch,
                                       Function<String, Optional<String>> topicIds) {
        this.client = Objects.requireNonNull(client, "client");
        this.brokerId = brokerId;
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        this.topicIds = Objects.requireNonNull(topicIds, "topicIds");
    }

    @Override
    public void report(TopicPartition tp, Optional<FailureReason> reason) {
        Optional<String> topicId = topicIds.apply(tp.topic());
        if (topicId.isEmpty()) {
            log.warn("Not reporting {} to the controller: its topic is not in the metadata", tp);
            return;
        }
        FailedReplica replica = FailedReplica.newBuilder()
                .setTopicId(topicId.get())
                .setPartition(tp.partition())
                .setReason(reason.map(FailureReason::message).orElse(""))
                .setCleared(reason.isEmpty())
                .build();
        client.reportFailedReplicas(brokerId, brokerEpoch.getAsLong(), List.of(replica)).whenComplete((r, e) -> {
            if (e != null || r.getErrorCode() != Errors.NONE.code()) {
                log.warn("Reporting replica {} as {} failed: {}", tp, reason.isPresent() ? "FAILED" : "recovered",
                        e != null ? e.toString() : Errors.forCode(r.getErrorCode()) + " " + r.getErrorMessage());
            }
        });
    }
}
