package io.tideline.client;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsPartitionResult;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.admin.DescribeTopicsRequest;
import io.tideline.proto.admin.DescribeTopicsResponse;
import io.tideline.proto.admin.ListTopicsRequest;
import io.tideline.proto.admin.ListTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.admin.PartitionDescription;
import io.tideline.proto.admin.TopicDescription;
import io.tideline.proto.admin.TopicResult;
import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.proto.client.LeaderHint;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.proto.client.ListOffsetsRequest;
import io.tideline.proto.client.ListOffsetsResponse;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.proto.client.TopicMetadata;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/**
 * In-process fake brokers that serve ClientService and AdminService from one shared in-memory model:
 * topics, a leader per partition, and a log per partition (whole batches with offsets, a log start
 * offset, a high watermark equal to the log end). Leaders are checked like a real broker does (a
 * non-leader answers NOT_LEADER_OR_FOLLOWER with the current leader) and out-of-range fetches carry
 * both bounds. Tests script errors through {@link #produceHook} and record what each broker received.
 * Thread-safe: every handler synchronizes on the cluster.
 */
final class FakeCluster implements AutoCloseable {
    static final int PORT = 9092;

    static final class FakeLog {
        final List<RecordBatch> batches = new ArrayList<>();
        long logStartOffset;
        long endOffset;

        /** Per producer id: epoch, last sequence and the base offsets of its last 5 batches by base sequence. */
        final Map<Long, long[]> producers = new HashMap<>();
        final Map<Long, java.util.LinkedHashMap<Integer, Long>> lastBatches = new HashMap<>();

        /**
         * A leader's idempotence check, as the real one (docs/kafka-protocol.md): a duplicate of one of the last 5
         * batches answers its original offset, a gap OUT_OF_ORDER_SEQUENCE_NUMBER, an older epoch
         * INVALID_PRODUCER_EPOCH; a producer id without state may start anywhere. Returns the base offset, or the
         * error's negative code minus one.
         */
        long appendChecked(MemoryRecords records) {
            RecordBatch first = records.batches().iterator().next();
            long pid = first.producerId();
            if (pid < 0) {
                return append(records);
            }
            long[] state = producers.get(pid);
            java.util.LinkedHashMap<Integer, Long> last = lastBatches.computeIfAbsent(pid, k -> new java.util.LinkedHashMap<>());
            int seq = first.baseSequence();
            if (state != null && state[0] == first.producerEpoch() && last.containsKey(seq)) {
                return last.get(seq);
            }
            if (state != null && first.producerEpoch() < state[0]) {
                return -Errors.INVALID_PRODUCER_EPOCH.code() - 1;
            }
            if (state != null && first.producerEpoch() > state[0] && seq != 0) {
                return -Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code() - 1;
            }
            if (state != null && first.producerEpoch() == state[0] && seq != state[1] + 1) {
                return -Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code() - 1;
            }
            if (state == null || first.producerEpoch() != state[0]) {
                last.clear();
            }
            long base = append(records);
            producers.put(pid, new long[] {first.producerEpoch(), seq + first.records().size() - 1});
            last.put(seq, base);
            if (last.size() > 5) {
                last.remove(last.keySet().iterator().next());
            }
            return base;
        }

        long append(MemoryRecords records) {
            long base = endOffset;
            for (RecordBatch b : records.batches()) {
                ByteBuffer copy = ByteBuffer.allocate(b.sizeInBytes());
                copy.put(b.buffer().duplicate());
                copy.flip();
                RecordBatch stored = RecordBatch.wrap(copy);
                stored.setBaseOffset(endOffset);
                batches.add(stored);
                endOffset = stored.nextOffset();
            }
            return base;
        }

        byte[] readFrom(long offset) {
            List<RecordBatch> out = new ArrayList<>();
            for (RecordBatch b : batches) {
                if (b.lastOffset() >= offset) {
                    out.add(b);
                }
            }
            ByteBuffer buf = MemoryRecords.of(out.toArray(new RecordBatch[0])).buffer();
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            return bytes;
        }

        List<Record> records() {
            List<Record> all = new ArrayList<>();
            batches.forEach(b -> all.addAll(b.records()));
            return all;
        }
    }

    record Received<T>(int brokerId, T request) {
    }

    private final String name;
    private final List<Integer> brokerIds = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final Map<String, Integer> partitionCounts = new TreeMap<>();
    private final Map<TopicPartition, Integer> leaders = new HashMap<>();
    private final Map<TopicPartition, Integer> epochs = new HashMap<>();
    private final Map<TopicPartition, FakeLog> logs = new HashMap<>();
    /** Leaders the next Metadata answers report instead of the real ones (a stale view). */
    private final Map<TopicPartition, Integer> staleLeaders = new HashMap<>();
    private int staleAnswers;

    /** Consulted for each produced partition at its leader; a non-NONE answer is returned instead of appending. */
    volatile BiFunction<Integer, ProducePartition, Errors> produceHook = (broker, p) -> Errors.NONE;
    /**
     * The gate the n-th fetch request (from 0) waits for before it is read and answered; open by default.
     */
    volatile java.util.function.IntFunction<java.util.concurrent.CompletableFuture<Void>> fetchGate =
            n -> java.util.concurrent.CompletableFuture.completedFuture(null);
    /** Consulted after a partition's append: a non-NONE answer replaces the success (the answer was lost). */
    volatile BiFunction<Integer, ProducePartition, Errors> answerLostHook = (broker, p) -> Errors.NONE;
    /** The error InitProducerId answers with instead of an id; NONE by default. */
    volatile Errors initProducerIdError = Errors.NONE;
    final List<io.tideline.proto.client.InitProducerIdRequest> initProducerIdRequests = new CopyOnWriteArrayList<>();
    private long nextProducerId = 1000;
    /** Produce requests wait for this before they are appended and answered; completed (open) by default. */
    volatile java.util.concurrent.CompletableFuture<Void> produceGate = java.util.concurrent.CompletableFuture.completedFuture(null);
    final List<Received<ProduceRequest>> produceRequests = new CopyOnWriteArrayList<>();
    final List<Received<FetchRequest>> fetchRequests = new CopyOnWriteArrayList<>();
    final List<Received<MetadataRequest>> metadataRequests = new CopyOnWriteArrayList<>();
    final List<Received<DeleteRecordsPartition>> deleteRecordsCalls = new CopyOnWriteArrayList<>();
    /**
     * Which broker the broker asked names as a group's coordinator (itself: it answers); -1 for an unknown group.
     */
    volatile BiFunction<Integer, String, Integer> groupCoordinator = (broker, group) -> -1;
    /** Each DescribeGroups and DeleteGroups, with the group ids asked. */
    final List<Received<List<String>>> groupCalls = new CopyOnWriteArrayList<>();

    FakeCluster(String name, int brokers) {
        this.name = name;
        for (int id = 1; id <= brokers; id++) {
            brokerIds.add(id);
            try {
                servers.add(InProcessServerBuilder.forName(address(id))
                        .addService(new FakeClientService(id)).addService(new FakeAdminService(id))
                        .build().start());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    String host(int brokerId) {
        return name + "-" + brokerId;
    }

    private String address(int brokerId) {
        return host(brokerId) + ":" + PORT;
    }

    String bootstrap() {
        return address(brokerIds.get(0));
    }

    ChannelFactory channels() {
        return (host, port) -> InProcessChannelBuilder.forName(host + ":" + port).build();
    }

    synchronized void createTopic(String topic, int partitions) {
        partitionCounts.put(topic, partitions);
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            leaders.put(tp, brokerIds.get(p % brokerIds.size()));
            epochs.put(tp, 0);
            logs.put(tp, new FakeLog());
        }
    }

    synchronized void moveLeader(TopicPartition tp, int brokerId) {
        leaders.put(tp, brokerId);
        epochs.merge(tp, 1, Integer::sum);
    }

    synchronized int leader(TopicPartition tp) {
        return leaders.get(tp);
    }

    /** The next {@code answers} Metadata answers report {@code brokerId} as the leader of {@code tp}. */
    synchronized void reportStaleLeader(TopicPartition tp, int brokerId, int answers) {
        staleLeaders.put(tp, brokerId);
        staleAnswers = answers;
    }

    /** Appends one batch of the given values (no keys) directly, as if produced. */
    synchronized long append(TopicPartition tp, String... values) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        for (String v : values) {
            builder.append(1_000L, null, v);
        }
        return logs.get(tp).append(builder.buildRecords());
    }

    synchronized void setLogStartOffset(TopicPartition tp, long offset) {
        logs.get(tp).logStartOffset = offset;
    }

    synchronized List<Record> records(TopicPartition tp) {
        return logs.get(tp).records();
    }

    synchronized FakeLog log(TopicPartition tp) {
        return logs.get(tp);
    }

    @Override
    public void close() {
        servers.forEach(Server::shutdownNow);
    }

    private synchronized MetadataResponse metadata(MetadataRequest request) {
        MetadataResponse.Builder b = MetadataResponse.newBuilder().setClusterId("fake").setControllerId(1);
        for (int id : brokerIds) {
            b.addBrokers(BrokerMetadata.newBuilder().setId(id).setHost(host(id)).setPort(PORT));
        }
        List<String> names = request.getTopicsCount() == 0 ? List.copyOf(partitionCounts.keySet())
                : request.getTopicsList();
        boolean stale = staleAnswers > 0;
        if (stale) {
            staleAnswers--;
        }
        for (String topic : names) {
            Integer count = partitionCounts.get(topic);
            if (count == null) {
                b.addTopics(TopicMetadata.newBuilder().setName(topic)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                continue;
            }
            TopicMetadata.Builder t = TopicMetadata.newBuilder().setName(topic);
            for (int p = 0; p < count; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                int leader = stale && staleLeaders.containsKey(tp) ? staleLeaders.get(tp) : leaders.get(tp);
                t.addPartitions(PartitionMetadata.newBuilder().setPartition(p).setLeaderId(leader)
                        .setLeaderEpoch(epochs.get(tp)).addAllReplicas(brokerIds).addAllIsr(brokerIds));
            }
            b.addTopics(t);
        }
        return b.build();
    }

    private LeaderHint hint(TopicPartition tp) {
        return LeaderHint.newBuilder().setLeaderId(leaders.get(tp)).setLeaderEpoch(epochs.get(tp)).build();
    }

    private synchronized ProduceResponse produce(int broker, ProduceRequest request) {
        ProduceResponse.Builder b = ProduceResponse.newBuilder();
        for (ProducePartition p : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
            ProducePartitionResponse.Builder r = ProducePartitionResponse.newBuilder()
                    .setTopic(p.getTopic()).setPartition(p.getPartition()).setBaseOffset(-1).setLogStartOffset(-1);
            Errors scripted = logs.containsKey(tp) && leaders.get(tp) == broker ? produceHook.apply(broker, p) : null;
            if (!logs.containsKey(tp)) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            } else if (leaders.get(tp) != broker) {
                r.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setCurrentLeader(hint(tp));
            } else if (scripted != Errors.NONE) {
                r.setErrorCode(scripted.code()).setErrorMessage("scripted " + scripted);
            } else {
                FakeLog log = logs.get(tp);
                long base = log.appendChecked(MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer()));
                Errors lost = base >= 0 ? answerLostHook.apply(broker, p) : Errors.NONE;
                if (base < 0) {
                    r.setErrorCode((int) (-base - 1)).setErrorMessage("refused by the leader");
                } else if (lost != Errors.NONE) {
                    r.setErrorCode(lost.code()).setErrorMessage("written, answer lost: " + lost);
                } else {
                    r.setBaseOffset(base).setLogStartOffset(log.logStartOffset);
                }
            }
            b.addPartitions(r);
        }
        return b.build();
    }

    private synchronized FetchResponse fetch(int broker, FetchRequest request) {
        FetchResponse.Builder b = FetchResponse.newBuilder();
        for (FetchPartition p : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
            FetchPartitionResponse.Builder r = FetchPartitionResponse.newBuilder()
                    .setTopic(p.getTopic()).setPartition(p.getPartition()).setHighWatermark(-1).setLogStartOffset(-1);
            FakeLog log = logs.get(tp);
            if (log == null) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            } else if (leaders.get(tp) != broker) {
                r.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setCurrentLeader(hint(tp));
            } else {
                r.setHighWatermark(log.endOffset).setLogStartOffset(log.logStartOffset);
                if (p.getFetchOffset() < log.logStartOffset || p.getFetchOffset() > log.endOffset) {
                    r.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                } else {
                    r.setRecords(ByteString.copyFrom(log.readFrom(p.getFetchOffset())));
                }
            }
            b.addPartitions(r);
        }
        return b.build();
    }

    private synchronized ListOffsetsResponse listOffsets(int broker, ListOffsetsRequest request) {
        ListOffsetsResponse.Builder b = ListOffsetsResponse.newBuilder();
        for (ListOffsetsPartition p : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
            ListOffsetsPartitionResponse.Builder r = ListOffsetsPartitionResponse.newBuilder()
                    .setTopic(p.getTopic()).setPartition(p.getPartition()).setOffset(-1).setTimestamp(-1);
            FakeLog log = logs.get(tp);
            if (log == null) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            } else if (leaders.get(tp) != broker) {
                r.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setCurrentLeader(hint(tp));
            } else if (p.getTimestamp() == -2) {
                r.setOffset(log.logStartOffset);
            } else if (p.getTimestamp() == -1) {
                r.setOffset(log.endOffset);
            } else {
                r.setErrorCode(Errors.INVALID_REQUEST.code());
            }
            b.addPartitions(r);
        }
        return b.build();
    }

    private synchronized DeleteRecordsResponse deleteRecords(int broker, DeleteRecordsRequest request) {
        DeleteRecordsResponse.Builder b = DeleteRecordsResponse.newBuilder();
        for (DeleteRecordsPartition p : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
            deleteRecordsCalls.add(new Received<>(broker, p));
            DeleteRecordsPartitionResult.Builder r = DeleteRecordsPartitionResult.newBuilder()
                    .setTopic(p.getTopic()).setPartition(p.getPartition()).setLowWatermark(-1);
            FakeLog log = logs.get(tp);
            if (log == null) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            } else if (leaders.get(tp) != broker) {
                r.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
            } else {
                long target = p.getOffset() == -1 ? log.endOffset : p.getOffset();
                if (target > log.endOffset || target < -1) {
                    r.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code()).setErrorMessage("beyond the high watermark");
                } else {
                    log.logStartOffset = Math.max(log.logStartOffset, target);
                    r.setLowWatermark(log.logStartOffset);
                }
            }
            b.addPartitions(r);
        }
        return b.build();
    }

    private synchronized CreateTopicsResponse createTopics(CreateTopicsRequest request) {
        CreateTopicsResponse.Builder b = CreateTopicsResponse.newBuilder();
        for (NewTopic t : request.getTopicsList()) {
            TopicResult.Builder r = TopicResult.newBuilder().setName(t.getName());
            int partitions = t.getAssignmentsCount() > 0 ? t.getAssignmentsCount() : t.getNumPartitions();
            if (partitionCounts.containsKey(t.getName())) {
                r.setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code()).setErrorMessage("Topic " + t.getName() + " exists");
            } else if (partitions <= 0) {
                r.setErrorCode(Errors.INVALID_PARTITIONS.code());
            } else if (!request.getValidateOnly()) {
                createTopic(t.getName(), partitions);
                t.getAssignmentsList().forEach(a -> moveLeader(new TopicPartition(t.getName(), a.getPartition()),
                        a.getReplicas(0)));
            }
            b.addResults(r);
        }
        return b.build();
    }

    private synchronized DescribeTopicsResponse describeTopics(DescribeTopicsRequest request) {
        DescribeTopicsResponse.Builder b = DescribeTopicsResponse.newBuilder();
        MetadataResponse m = metadata(MetadataRequest.newBuilder().addAllTopics(request.getNamesList()).build());
        for (TopicMetadata t : m.getTopicsList()) {
            TopicDescription.Builder d = TopicDescription.newBuilder().setName(t.getName()).setErrorCode(t.getErrorCode());
            t.getPartitionsList().forEach(p -> d.addPartitions(PartitionDescription.newBuilder().setMetadata(p)));
            b.addTopics(d);
        }
        return b.build();
    }

    private final class FakeClientService extends ClientServiceGrpc.ClientServiceImplBase {
        private final int id;

        FakeClientService(int id) {
            this.id = id;
        }

        @Override
        public void produce(ProduceRequest request, StreamObserver<ProduceResponse> observer) {
            produceRequests.add(new Received<>(id, request));
            // Answered (and appended) once the gate opens: a leader slower than the producer.
            produceGate.thenRun(() -> answer(observer, FakeCluster.this.produce(id, request)));
        }

        @Override
        public void initProducerId(io.tideline.proto.client.InitProducerIdRequest request,
                                   StreamObserver<io.tideline.proto.client.InitProducerIdResponse> observer) {
            initProducerIdRequests.add(request);
            io.tideline.proto.client.InitProducerIdResponse.Builder r = io.tideline.proto.client.InitProducerIdResponse
                    .newBuilder().setErrorCode(initProducerIdError.code()).setProducerId(-1).setProducerEpoch(-1);
            if (initProducerIdError == Errors.NONE) {
                synchronized (FakeCluster.this) {
                    if (request.getProducerId() >= 0) {
                        r.setProducerId(request.getProducerId()).setProducerEpoch(request.getProducerEpoch() + 1);
                    } else {
                        r.setProducerId(nextProducerId++).setProducerEpoch(0);
                    }
                }
            }
            answer(observer, r.build());
        }

        @Override
        public void fetch(FetchRequest request, StreamObserver<FetchResponse> observer) {
            int n;
            synchronized (fetchRequests) {
                n = fetchRequests.size();
                fetchRequests.add(new Received<>(id, request));
            }
            fetchGate.apply(n).thenRun(() -> answer(observer, FakeCluster.this.fetch(id, request)));
        }

        @Override
        public void listOffsets(ListOffsetsRequest request, StreamObserver<ListOffsetsResponse> observer) {
            answer(observer, FakeCluster.this.listOffsets(id, request));
        }

        @Override
        public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> observer) {
            metadataRequests.add(new Received<>(id, request));
            answer(observer, FakeCluster.this.metadata(request));
        }
    }

    private final class FakeAdminService extends AdminServiceGrpc.AdminServiceImplBase {
        private final int id;

        FakeAdminService(int id) {
            this.id = id;
        }

        @Override
        public void createTopics(CreateTopicsRequest request, StreamObserver<CreateTopicsResponse> observer) {
            answer(observer, FakeCluster.this.createTopics(request));
        }

        @Override
        public void listTopics(ListTopicsRequest request, StreamObserver<ListTopicsResponse> observer) {
            synchronized (FakeCluster.this) {
                answer(observer, ListTopicsResponse.newBuilder().addAllNames(partitionCounts.keySet()).build());
            }
        }

        @Override
        public void describeTopics(DescribeTopicsRequest request, StreamObserver<DescribeTopicsResponse> observer) {
            answer(observer, FakeCluster.this.describeTopics(request));
        }

        @Override
        public void deleteRecords(DeleteRecordsRequest request, StreamObserver<DeleteRecordsResponse> observer) {
            answer(observer, FakeCluster.this.deleteRecords(id, request));
        }

        @Override
        public void describeGroups(io.tideline.proto.admin.DescribeGroupsRequest request,
                                   StreamObserver<io.tideline.proto.admin.DescribeGroupsResponse> observer) {
            groupCalls.add(new Received<>(id, request.getGroupIdsList()));
            var response = io.tideline.proto.admin.DescribeGroupsResponse.newBuilder();
            for (String g : request.getGroupIdsList()) {
                int coordinator = groupCoordinator.apply(id, g);
                var d = io.tideline.proto.admin.GroupDescription.newBuilder().setGroupId(g).setCoordinatorId(coordinator);
                if (coordinator < 0) {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code());
                } else if (coordinator != id) {
                    d.setErrorCode(Errors.NOT_COORDINATOR.code());
                } else {
                    d.setState("Empty").setProtocolType("consumer").addOffsets(io.tideline.proto.admin.GroupOffset
                            .newBuilder().setTopic("orders").setPartition(0).setOffset(id));
                }
                response.addGroups(d);
            }
            answer(observer, response.build());
        }

        @Override
        public void deleteGroups(io.tideline.proto.admin.DeleteGroupsRequest request,
                                 StreamObserver<io.tideline.proto.admin.DeleteGroupsResponse> observer) {
            groupCalls.add(new Received<>(id, request.getGroupIdsList()));
            var response = io.tideline.proto.admin.DeleteGroupsResponse.newBuilder();
            for (String g : request.getGroupIdsList()) {
                int coordinator = groupCoordinator.apply(id, g);
                Errors e = coordinator < 0 ? Errors.GROUP_ID_NOT_FOUND
                        : coordinator != id ? Errors.NOT_COORDINATOR : Errors.NONE;
                response.addResults(io.tideline.proto.admin.GroupResult.newBuilder().setGroupId(g)
                        .setErrorCode(e.code()).setCoordinatorId(coordinator));
            }
            answer(observer, response.build());
        }
    }

    private static <T> void answer(StreamObserver<T> observer, T value) {
        observer.onNext(value);
        observer.onCompleted();
    }
}
