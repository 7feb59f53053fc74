package io.tideline.node.kafka.data;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.service.RequestChecks;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.kafka.SliceRecords;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.replication.server.ConsumerFetch;
import io.tideline.replication.server.ConsumerFetchResult;
import io.tideline.replication.server.ReplicaManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's Fetch for consumers on the Kafka listener (docs/kafka-protocol.md, "Produce and fetch"): the checks
 * of both listeners ({@link RequestChecks}) and ReplicaManager's consumer fetch with its long poll
 * (min_bytes, max_wait_ms, max_bytes, partition_max_bytes). The records are the stored batches as they are on
 * disk: an open {@link SliceRecords} per partition, which the listener sends with a file transfer and closes.
 * Every path that does not hand a response to the listener closes the slices itself; once handed over, the
 * listener closes them when sent or when the connection is gone.
 *
 * <ul>
 *   <li>Versions 4-18; 13 and up name topics by id (UNKNOWN_TOPIC_ID when the image has no such topic).</li>
 *   <li>Consumers only: a replica id (or replica state) of 0 or more is a follower, which replicates over gRPC
 *       here; its partitions are refused with INVALID_REQUEST.</li>
 *   <li>No fetch sessions (KIP-227): the answer's session id is 0, so the client sends full fetches; a request
 *       naming a session gets FETCH_SESSION_ID_NOT_FOUND, a sessionless one with an epoch other than 0 or -1
 *       INVALID_FETCH_SESSION_EPOCH, as Kafka answers.</li>
 *   <li>No transactions: read_committed is served as read_uncommitted, the last stable offset is the high
 *       watermark and aborted_transactions is empty. preferred_read_replica is -1 (no follower fetching).</li>
 * </ul>
 * Safe for concurrent use.
 */
public final class FetchApi extends AbstractKafkaApi {
    private static final Logger log = LoggerFactory.getLogger(FetchApi.class);
    static final short MIN_VERSION = 4;
    static final short MAX_VERSION = 18;
    static final short TOPIC_ID_VERSION = 13;
    /** Version 15 moved the replica id into replica_state (KIP-903). */
    static final short REPLICA_STATE_VERSION = 15;
    private static final byte READ_COMMITTED = 1;

    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;
    private final FetchStats stats;

    public FetchApi(Supplier<MetadataImage> image, ReplicaManager replicaManager, FetchStats stats) {
        super(ApiKeys.FETCH, MIN_VERSION, MAX_VERSION);
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.stats = Objects.requireNonNull(stats, "stats");
    }

    /** One partition of the request, with the topic name it resolved to (null when it did not). */
    private record Entry(FetchTopic topic, String name, FetchPartition partition) {
    }

    @Override
    public CompletableFuture<FetchResponseData> handle(KafkaRequest request) {
        FetchRequestData data = request.body(FetchRequestData.class);
        short version = request.version();
        if (data.sessionId() != 0) {
            return CompletableFuture.completedFuture(new FetchResponseData().setSessionId(0)
                    .setErrorCode(org.apache.kafka.common.protocol.Errors.FETCH_SESSION_ID_NOT_FOUND.code()));
        }
        if (data.sessionEpoch() != 0 && data.sessionEpoch() != -1) {
            return CompletableFuture.completedFuture(new FetchResponseData().setSessionId(0)
                    .setErrorCode(org.apache.kafka.common.protocol.Errors.INVALID_FETCH_SESSION_EPOCH.code()));
        }
        MetadataImage current = image.get();
        List<Entry> entries = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            String name = version >= TOPIC_ID_VERSION
                    ? TopicIds.topic(current, topic.topicId()).map(TopicImage::name).orElse(null) : topic.topic();
            topic.partitions().forEach(p -> entries.add(new Entry(topic, name, p)));
        }
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(entries.stream().filter(e -> e.name() != null).toList(),
                Entry::name, e -> e.partition().partition());
        int replicaId = version >= REPLICA_STATE_VERSION ? data.replicaState().replicaId() : data.replicaId();
        String requestProblem = replicaId >= 0
                ? "replica " + replicaId + ": followers replicate over the node's replication API, not Fetch"
                : data.isolationLevel() != 0 && data.isolationLevel() != READ_COMMITTED
                ? "isolation_level must be 0 or 1, got " + data.isolationLevel()
                : RequestChecks.fetchRequestProblem(data.minBytes(), data.maxBytes(), data.maxWaitMs());

        PartitionData[] answers = new PartitionData[entries.size()];
        List<ConsumerFetch> toRead = new ArrayList<>();
        Map<TopicPartition, Integer> reading = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            Errors error = Errors.INVALID_REQUEST;
            String problem = requestProblem;
            if (problem == null && e.name() == null) {
                error = Errors.UNKNOWN_TOPIC_ID;
                problem = "unknown topic id " + e.topic().topicId();
            }
            if (problem == null) {
                RequestChecks.Check check = RequestChecks.partition(current, e.name(), e.partition().partition(), listedTwice);
                error = check.error();
                problem = check.message();
            }
            if (problem == null) {
                error = Errors.INVALID_REQUEST;
                problem = RequestChecks.partitionMaxBytesProblem(e.partition().partitionMaxBytes());
            }
            if (problem != null) {
                log.debug("Fetch of {}-{} refused: {}", e.name(), e.partition().partition(), problem);
                answers[i] = error(e, error, -1L, -1L, current, version);
                continue;
            }
            TopicPartition tp = new TopicPartition(e.name(), e.partition().partition());
            toRead.add(new ConsumerFetch(tp, e.partition().fetchOffset(), e.partition().partitionMaxBytes(),
                    e.partition().currentLeaderEpoch()));
            reading.put(tp, i);
        }
        boolean readCommitted = data.isolationLevel() == READ_COMMITTED;
        if (toRead.isEmpty()) {
            return CompletableFuture.completedFuture(response(data, answers, version));
        }
        CompletableFuture<FetchResponseData> out = new CompletableFuture<>();
        replicaManager.fetchForConsumerSlices(toRead, data.minBytes(), data.maxBytes(), data.maxWaitMs())
                .whenComplete((results, failure) -> {
                    FetchResponseData response;
                    try {
                        MetadataImage now = image.get();
                        if (failure != null) {
                            log.error("Fetch failed", failure);
                            reading.values().forEach(i -> answers[i] = error(entries.get(i), Errors.UNKNOWN_SERVER_ERROR,
                                    -1L, -1L, now, version));
                        } else {
                            results.forEach((tp, r) -> answers[reading.get(tp)] = result(entries.get(reading.get(tp)), r,
                                    readCommitted, now, version));
                        }
                        response = response(data, answers, version);
                    } catch (RuntimeException e) {
                        // Partly built: the slices of every partition, wrapped or not, are released here.
                        if (results != null) {
                            results.values().forEach(ConsumerFetchResult::closeSlice);
                        }
                        out.completeExceptionally(e);
                        return;
                    }
                    if (!out.complete(response)) {
                        // The listener gave up on this request (its connection is gone): nobody will send these.
                        SliceRecords.closeAll(response);
                    } else {
                        stats.handedOver(response);
                    }
                });
        return out;
    }

    private static FetchResponseData response(FetchRequestData data, PartitionData[] answers, short version) {
        FetchResponseData out = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            FetchableTopicResponse t = new FetchableTopicResponse();
            if (version >= TOPIC_ID_VERSION) {
                t.setTopicId(topic.topicId());
            } else {
                t.setTopic(topic.topic());
            }
            for (int n = 0; n < topic.partitions().size(); n++) {
                t.partitions().add(answers[i++]);
            }
            out.responses().add(t);
        }
        return out;
    }

    private static PartitionData error(Entry e, Errors error, long hw, long logStartOffset, MetadataImage image,
                                       short version) {
        return partition(e, error, hw, logStartOffset, false, image, version).setRecords(MemoryRecords.EMPTY);
    }

    private static PartitionData result(Entry e, ConsumerFetchResult r, boolean readCommitted, MetadataImage image,
                                        short version) {
        PartitionData p = partition(e, r.error(), r.highWatermark(), r.logStartOffset(), readCommitted, image, version);
        if (r.slice() != null && r.slice().sizeInBytes() > 0) {
            p.setRecords(new SliceRecords(r.slice()));
        } else {
            r.closeSlice();
            p.setRecords(MemoryRecords.EMPTY);
        }
        return p;
    }

    private static PartitionData partition(Entry e, Errors error, long hw, long logStartOffset, boolean readCommitted,
                                           MetadataImage image, short version) {
        PartitionData p = new PartitionData().setPartitionIndex(e.partition().partition()).setErrorCode(error.code())
                .setHighWatermark(hw)
                // No transactions: everything below the high watermark is stable.
                .setLastStableOffset(hw)
                .setLogStartOffset(logStartOffset)
                .setPreferredReadReplica(-1)
                // Kafka answers null for read_uncommitted, the (here always empty) list for read_committed.
                .setAbortedTransactions(readCommitted ? new ArrayList<>() : null);
        if (version >= 12 && (error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.FENCED_LEADER_EPOCH)) {
            TopicIds.Leader leader = TopicIds.leader(image, e.name(), e.partition().partition());
            p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
        }
        return p;
    }
}
