package io.tideline.node.api;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.StreamObserver;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.node.service.OffsetLookup;
import io.tideline.node.service.RequestChecks;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.proto.client.InitProducerIdRequest;
import io.tideline.proto.client.InitProducerIdResponse;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.proto.client.ListOffsetsRequest;
import io.tideline.proto.client.ListOffsetsResponse;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.replication.server.ConsumerFetch;
import io.tideline.replication.server.ConsumerFetchResult;
import io.tideline.replication.server.ProduceResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.record.MemoryRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client API on a broker. Every field is checked before anything is read or written: a bad partition
 * gets its typed error and the others proceed; a bad request-level field (acks, byte limits, waits) fails
 * every partition of the request with it and changes nothing.
 */
public final class ClientApiService extends ClientServiceGrpc.ClientServiceImplBase {
    private static final Logger log = LoggerFactory.getLogger(ClientApiService.class);

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;
    private final MetadataResponses metadata;
    private final ProducerIdInitializer producerIds;

    public ClientApiService(int brokerId, String clusterId, Supplier<MetadataImage> image, ReplicaManager replicaManager,
                            IntSupplier controllerId, ProducerIdInitializer producerIds) {
        this.brokerId = brokerId;
        this.producerIds = Objects.requireNonNull(producerIds, "producerIds");
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.metadata = new MetadataResponses(clusterId, controllerId);
    }

    // ---------------------------------------------------------------- InitProducerId

    /** Kafka's InitProducerId rules ({@link ProducerIdInitializer}); a new id may wait for the controller. */
    @Override
    public void initProducerId(InitProducerIdRequest request, StreamObserver<InitProducerIdResponse> observer) {
        int epoch = request.getProducerEpoch();
        if (epoch < Short.MIN_VALUE || epoch > Short.MAX_VALUE) {
            respond(observer, InitProducerIdResponse.newBuilder().setErrorCode(Errors.INVALID_REQUEST.code())
                    .setProducerId(-1).setProducerEpoch(-1).build());
            return;
        }
        producerIds.init(request.hasTransactionalId() ? request.getTransactionalId() : null, request.getProducerId(),
                (short) epoch).thenAccept(r -> respond(observer, InitProducerIdResponse.newBuilder()
                .setErrorCode(r.error().code()).setProducerId(r.producerId()).setProducerEpoch(r.producerEpoch()).build()));
    }

    // ---------------------------------------------------------------- Produce

    @Override
    public void produce(ProduceRequest request, StreamObserver<ProduceResponse> observer) {
        MetadataImage current = image.get();
        // A list, not a map: refused entries may repeat a partition or name a negative one.
        List<ProducePartitionResponse> answered = new ArrayList<>();
        Map<TopicPartition, MemoryRecords> toAppend = new LinkedHashMap<>();
        RequestChecks.Check requestCheck = RequestChecks.produceRequest(request.getAcks(), request.getTimeoutMs());
        String requestProblem = requestCheck.message();
        Errors requestError = requestCheck.error();
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(request.getPartitionsList(),
                ProducePartition::getTopic, ProducePartition::getPartition);
        for (ProducePartition p : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(p.getTopic(), Math.max(0, p.getPartition()));
            String problem = requestProblem;
            Errors error = requestError;
            if (problem == null) {
                RequestChecks.Check check = RequestChecks.partition(current, p.getTopic(), p.getPartition(), listedTwice);
                error = check.error();
                problem = check.message();
            }
            if (problem == null && p.getRecords().isEmpty()) {
                error = Errors.INVALID_REQUEST;
                problem = "no record batches for " + tp;
            }
            if (problem != null) {
                answered.add(produceError(p, error, problem, current));
                continue;
            }
            // A private copy: the leader writes offsets, epochs and timestamps into the batches in place.
            toAppend.put(tp, MemoryRecords.readableRecords(ByteBuffer.wrap(p.getRecords().toByteArray())));
        }
        if (toAppend.isEmpty()) {
            respond(observer, ProduceResponse.newBuilder().addAllPartitions(answered).build());
            return;
        }
        // The answer needs the partitions only: an acks=all produce parked until the high watermark passes
        // its records must not keep the records themselves reachable (they are on disk by now).
        List<TopicPartition> appended = List.copyOf(toAppend.keySet());
        replicaManager.appendRecords(toAppend, request.getAcks(), request.getTimeoutMs()).whenComplete((results, e) -> {
            ProduceResponse.Builder b = ProduceResponse.newBuilder().addAllPartitions(answered);
            if (e != null) {
                log.error("Produce failed", e);
                appended.forEach(tp -> b.addPartitions(produceError(tp, Errors.UNKNOWN_SERVER_ERROR,
                        String.valueOf(e.getMessage()), image.get())));
            } else {
                results.forEach((tp, r) -> b.addPartitions(produceResult(tp, r)));
            }
            respond(observer, b.build());
        });
    }

    private ProducePartitionResponse produceError(ProducePartition p, Errors error, String message, MetadataImage current) {
        return ProducePartitionResponse.newBuilder().setTopic(p.getTopic()).setPartition(p.getPartition())
                .setErrorCode(error.code()).setErrorMessage(message).setBaseOffset(-1).setLogStartOffset(-1)
                .setCurrentLeader(metadata.leaderHint(current, p.getTopic(), p.getPartition())).build();
    }

    private ProducePartitionResponse produceError(TopicPartition tp, Errors error, String message, MetadataImage current) {
        return produceError(ProducePartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition()).build(),
                error, message, current);
    }

    private ProducePartitionResponse produceResult(TopicPartition tp, ProduceResult r) {
        ProducePartitionResponse.Builder b = ProducePartitionResponse.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).setErrorCode(r.error().code()).setBaseOffset(r.baseOffset())
                .setLogStartOffset(r.logStartOffset())
                .setCurrentLeader(metadata.leaderHint(image.get(), tp.topic(), tp.partition()));
        if (r.message() != null) {
            b.setErrorMessage(r.message());
        }
        return b.build();
    }

    // ---------------------------------------------------------------- Fetch

    @Override
    public void fetch(FetchRequest request, StreamObserver<FetchResponse> observer) {
        MetadataImage current = image.get();
        String requestProblem = RequestChecks.fetchRequestProblem(request.getMinBytes(), request.getMaxBytes(),
                request.getMaxWaitMs());
        List<FetchPartitionResponse> answered = new ArrayList<>();
        List<ConsumerFetch> toRead = new ArrayList<>();
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(request.getPartitionsList(),
                FetchPartition::getTopic, FetchPartition::getPartition);
        for (FetchPartition p : request.getPartitionsList()) {
            String problem = requestProblem;
            Errors error = Errors.INVALID_REQUEST;
            if (problem == null) {
                RequestChecks.Check check = RequestChecks.partition(current, p.getTopic(), p.getPartition(), listedTwice);
                error = check.error();
                problem = check.message();
            }
            if (problem == null && RequestChecks.partitionMaxBytesProblem(p.getPartitionMaxBytes()) != null) {
                error = Errors.INVALID_REQUEST;
                problem = RequestChecks.partitionMaxBytesProblem(p.getPartitionMaxBytes());
            }
            if (problem != null) {
                answered.add(fetchError(p.getTopic(), p.getPartition(), error, problem, -1, -1, current));
                continue;
            }
            toRead.add(new ConsumerFetch(new TopicPartition(p.getTopic(), p.getPartition()), p.getFetchOffset(),
                    p.getPartitionMaxBytes(), p.getCurrentLeaderEpoch()));
        }
        if (toRead.isEmpty()) {
            respond(observer, FetchResponse.newBuilder().addAllPartitions(answered).build());
            return;
        }
        replicaManager.fetchForConsumer(toRead, request.getMinBytes(), request.getMaxBytes(), request.getMaxWaitMs())
                .whenComplete((results, e) -> {
                    FetchResponse.Builder b = FetchResponse.newBuilder().addAllPartitions(answered);
                    if (e != null) {
                        log.error("Fetch failed", e);
                        toRead.forEach(f -> b.addPartitions(fetchError(f.topicPartition().topic(),
                                f.topicPartition().partition(), Errors.UNKNOWN_SERVER_ERROR, String.valueOf(e.getMessage()),
                                -1, -1, image.get())));
                    } else {
                        results.forEach((tp, r) -> b.addPartitions(fetchResult(tp, r)));
                    }
                    respond(observer, b.build());
                });
    }

    private FetchPartitionResponse fetchError(String topic, int partition, Errors error, String message, long hw,
                                              long lso, MetadataImage current) {
        return FetchPartitionResponse.newBuilder().setTopic(topic).setPartition(partition).setErrorCode(error.code())
                .setErrorMessage(message).setHighWatermark(hw).setLogStartOffset(lso)
                .setCurrentLeader(metadata.leaderHint(current, topic, partition)).build();
    }

    private FetchPartitionResponse fetchResult(TopicPartition tp, ConsumerFetchResult r) {
        FetchPartitionResponse.Builder b = FetchPartitionResponse.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).setErrorCode(r.error().code()).setHighWatermark(r.highWatermark())
                .setLogStartOffset(r.logStartOffset())
                .setCurrentLeader(metadata.leaderHint(image.get(), tp.topic(), tp.partition()));
        if (r.message() != null) {
            b.setErrorMessage(r.message());
        }
        if (r.records().sizeInBytes() > 0) {
            ByteBuffer buffer = r.records().buffer().duplicate();
            b.setRecords(UnsafeByteOperations.unsafeWrap(buffer));
        }
        return b.build();
    }

    // ---------------------------------------------------------------- ListOffsets

    @Override
    public void listOffsets(ListOffsetsRequest request, StreamObserver<ListOffsetsResponse> observer) {
        MetadataImage current = image.get();
        ListOffsetsResponse.Builder b = ListOffsetsResponse.newBuilder();
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(request.getPartitionsList(),
                ListOffsetsPartition::getTopic, ListOffsetsPartition::getPartition);
        OffsetLookup offsets = new OffsetLookup(replicaManager, brokerId);
        for (ListOffsetsPartition p : request.getPartitionsList()) {
            b.addPartitions(lookup(offsets, current, p, listedTwice));
        }
        respond(observer, b.build());
    }

    private ListOffsetsPartitionResponse lookup(OffsetLookup offsets, MetadataImage image, ListOffsetsPartition p,
                                                Set<TopicPartition> listedTwice) {
        ListOffsetsPartitionResponse.Builder b = ListOffsetsPartitionResponse.newBuilder().setTopic(p.getTopic())
                .setPartition(p.getPartition()).setOffset(-1).setTimestamp(-1)
                .setCurrentLeader(metadata.leaderHint(image, p.getTopic(), p.getPartition()));
        // The partition's own errors come before a bad timestamp, as they always have on this API.
        boolean partitionOk = RequestChecks.partition(image, p.getTopic(), p.getPartition(), listedTwice).error() == Errors.NONE;
        OffsetLookup.Found found = partitionOk && p.getTimestamp() < OffsetLookup.EARLIEST
                ? OffsetLookup.Found.error(Errors.INVALID_REQUEST, "timestamp must be -2 (earliest), -1 (latest) or a "
                + "time in ms, got " + p.getTimestamp())
                : offsets.find(image, p.getTopic(), p.getPartition(), p.getTimestamp(), -1, listedTwice);
        b.setErrorCode(found.error().code()).setOffset(found.offset()).setTimestamp(found.timestamp());
        if (found.message() != null) {
            b.setErrorMessage(found.message());
        }
        return b.build();
    }

    // ---------------------------------------------------------------- Metadata

    @Override
    public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> observer) {
        respond(observer, metadata.build(image.get(), request.getTopicsList()));
    }

    static <T> void respond(StreamObserver<T> observer, T response) {
        try {
            observer.onNext(response);
            observer.onCompleted();
        } catch (RuntimeException e) {
            // The client went away (cancelled, deadline passed): nothing to answer.
            log.debug("Could not answer: {}", e.toString());
        }
    }
}
