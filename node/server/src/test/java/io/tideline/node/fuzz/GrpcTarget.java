package io.tideline.node.fuzz;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.testutil.RawGrpc;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsPartitionResult;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.admin.DeleteTopicsRequest;
import io.tideline.proto.admin.DeleteTopicsResponse;
import io.tideline.proto.admin.TopicResult;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Sends the fuzzer's gRPC calls to one node's gRPC listener: every method of the client, admin and replication
 * services, each request as bytes (a message built by {@link GrpcMessages}, or bytes that are no such message)
 * through a byte-array method of the same name, so a message and a damaged one take one path. The request and the
 * answer are parsed here with the generated classes, as the node parses them, to tell the oracle what a call may
 * change: a Produce the partitions answered NONE, a DeleteRecords those answered NONE or REQUEST_TIMED_OUT up to
 * their low watermark, a DeleteTopics the topics answered NONE.
 *
 * <p>Not thread-safe.
 */
final class GrpcTarget {
    static final String PRODUCE = "tideline.client.ClientService/Produce";
    static final String DELETE_RECORDS = "tideline.admin.AdminService/DeleteRecords";
    static final String DELETE_TOPICS = "tideline.admin.AdminService/DeleteTopics";

    /** A method: its real descriptor (for the request and answer types) and the byte-array one it is called by. */
    record Method(MethodDescriptor<?, ?> typed, MethodDescriptor<byte[], byte[]> bytes, Message requestPrototype,
                  Message responsePrototype) {
        String name() {
            return typed.getFullMethodName();
        }
    }

    /** What a call got: the gRPC status and, for the oracle, the changes it may make. */
    record Result(Status.Code status, String statusDescription, LogOracle.Permits permits, boolean requestParsed,
                  String untypedError) {
        /**
         * {@code untypedError}: an answer that is not a typed error (UNKNOWN_SERVER_ERROR, gRPC UNKNOWN), or one
         * call of bytes that are not its method's message not ended INVALID_ARGUMENT (docs/behaviours.md B164);
         * else null. A stream may end otherwise when a request before the unparsable one already ended it.
         */
        Result(Status.Code status, String statusDescription, LogOracle.Permits permits, boolean requestParsed,
               boolean unary) {
            this(status, statusDescription, permits, requestParsed,
                    untyped(status, statusDescription, requestParsed, unary));
        }

        private static String untyped(Status.Code status, String description, boolean parsed, boolean unary) {
            if (status == Status.Code.UNKNOWN) {
                return "gRPC status UNKNOWN: " + description;
            }
            if (!parsed && unary && status != Status.Code.INVALID_ARGUMENT && status != Status.Code.DEADLINE_EXCEEDED
                    && status != Status.Code.RESOURCE_EXHAUSTED) {
                return "bytes that are not the method's message ended " + status + " (" + description
                        + "), not INVALID_ARGUMENT";
            }
            return null;
        }
    }

    private final ManagedChannel channel;
    private final int deadlineMs;

    GrpcTarget(ManagedChannel channel, int deadlineMs) {
        this.channel = channel;
        this.deadlineMs = deadlineMs;
    }

    /** Every method the node's gRPC listener serves to clients, admins and followers. */
    static List<Method> methods() {
        List<Method> out = new ArrayList<>();
        Stream.of(ClientServiceGrpc.getServiceDescriptor(), AdminServiceGrpc.getServiceDescriptor(),
                ReplicaFetchServiceGrpc.getServiceDescriptor()).forEach(service -> {
                    for (MethodDescriptor<?, ?> m : service.getMethods()) {
                        Message request = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) m.getRequestMarshaller())
                                .getMessagePrototype();
                        Message response = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) m
                                .getResponseMarshaller()).getMessagePrototype();
                        out.add(new Method(m, RawGrpc.asBytes(m), request, response));
                    }
                });
        return out;
    }

    /** One call: unary methods get one request, streaming ones {@code requests} in one stream. */
    Result call(Method method, List<byte[]> requests) throws InterruptedException {
        LogOracle.Permits permits = new LogOracle.Permits();
        boolean parsed = true;
        List<Message> parsedRequests = new ArrayList<>();
        for (byte[] r : requests) {
            try {
                parsedRequests.add(method.requestPrototype().getParserForType().parseFrom(r));
            } catch (InvalidProtocolBufferException e) {
                parsed = false;
            }
        }
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS);
        if (method.typed().getType() == MethodDescriptor.MethodType.UNARY) {
            parsedRequests.forEach(m -> permitAcksZero(method, m, permits));
            try {
                byte[] answer = ClientCalls.blockingUnaryCall(channel, method.bytes(), options, requests.get(0));
                readPermits(method, answer, permits);
                return new Result(Status.Code.OK, "", permits, parsed, parsed ? unknownServerError(method, answer)
                        : "bytes that are not the method's message were answered OK, not INVALID_ARGUMENT");
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
                    parsedRequests.forEach(m -> permitNamed(method, m, permits)); // its outcome is unknown
                }
                return new Result(e.getStatus().getCode(), String.valueOf(e.getStatus().getDescription()), permits,
                        parsed, true);
            }
        }
        CountDownLatch done = new CountDownLatch(1);
        Status[] end = {Status.OK};
        StreamObserver<byte[]> out = ClientCalls.asyncBidiStreamingCall(channel.newCall(method.bytes(), options),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                    }

                    @Override
                    public void onError(Throwable t) {
                        end[0] = Status.fromThrowable(t);
                        done.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        done.countDown();
                    }
                });
        requests.forEach(out::onNext);
        out.onCompleted();
        if (!done.await(deadlineMs + 2_000L, TimeUnit.MILLISECONDS)) {
            return new Result(Status.Code.DEADLINE_EXCEEDED, "the stream did not end after its deadline", permits,
                    parsed, false);
        }
        return new Result(end[0].getCode(), String.valueOf(end[0].getDescription()), permits, parsed, false);
    }

    /** Where an answer carries UNKNOWN_SERVER_ERROR in any {@code error_code} field, a description of it. */
    private static String unknownServerError(Method method, byte[] answer) {
        try {
            Message response = method.responsePrototype().getParserForType().parseFrom(answer);
            List<String> found = new ArrayList<>();
            findUnknownServerError(response, found);
            return found.isEmpty() ? null : "UNKNOWN_SERVER_ERROR in the answer: " + found;
        } catch (InvalidProtocolBufferException e) {
            return "an answer that is not a " + method.responsePrototype().getDescriptorForType().getName();
        }
    }

    private static void findUnknownServerError(Message m, List<String> found) {
        m.getAllFields().forEach((f, v) -> {
            if (f.getName().equals("error_code") && v instanceof Integer code
                    && code == Errors.UNKNOWN_SERVER_ERROR.code()) {
                found.add(com.google.protobuf.TextFormat.shortDebugString(m));
            } else if (f.getJavaType() == com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) {
                if (f.isRepeated()) {
                    ((List<?>) v).forEach(e -> findUnknownServerError((Message) e, found));
                } else {
                    findUnknownServerError((Message) v, found);
                }
            }
        });
    }

    private static void permitAcksZero(Method method, Message request, LogOracle.Permits permits) {
        if (request instanceof ProduceRequest p && p.getAcks() == 0) {
            permitNamed(method, request, permits);
        }
    }

    private static void permitNamed(Method method, Message request, LogOracle.Permits permits) {
        if (request instanceof ProduceRequest p) {
            for (ProducePartition pp : p.getPartitionsList()) {
                permits.append(pp.getTopic(), pp.getPartition());
            }
        } else if (request instanceof DeleteRecordsRequest d) {
            for (DeleteRecordsPartition dp : d.getPartitionsList()) {
                permits.deleteRecords(dp.getTopic(), dp.getPartition(), Long.MAX_VALUE);
            }
        } else if (request instanceof DeleteTopicsRequest d) {
            d.getNamesList().forEach(permits::deleteTopic);
        }
    }

    private static void readPermits(Method method, byte[] answer, LogOracle.Permits permits) {
        try {
            switch (method.name()) {
                case PRODUCE -> {
                    for (ProducePartitionResponse r : ProduceResponse.parseFrom(answer).getPartitionsList()) {
                        if (r.getErrorCode() == Errors.NONE.code()) {
                            permits.append(r.getTopic(), r.getPartition());
                        }
                    }
                }
                case DELETE_RECORDS -> {
                    for (DeleteRecordsPartitionResult r : DeleteRecordsResponse.parseFrom(answer).getPartitionsList()) {
                        if (r.getErrorCode() == Errors.NONE.code()
                                || r.getErrorCode() == Errors.REQUEST_TIMED_OUT.code()) {
                            permits.deleteRecords(r.getTopic(), r.getPartition(),
                                    r.getLowWatermark());
                        }
                    }
                }
                case DELETE_TOPICS -> {
                    for (TopicResult r : DeleteTopicsResponse.parseFrom(answer).getResultsList()) {
                        if (r.getErrorCode() == Errors.NONE.code()) {
                            permits.deleteTopic(r.getName());
                        }
                    }
                }
                default -> {
                    // reads only
                }
            }
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(method.name() + " answered bytes that are not its response type", e);
        }
    }
}
