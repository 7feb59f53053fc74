package io.tideline.node.kafka;

import io.tideline.proto.metadata.ControllerQueryResponse;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeQuorumRequest;

/**
 * DescribeQuorum v0-2 (kafka-metadata-quorum describe; docs/behaviours.md B250): the metadata quorum's state as its
 * Raft leader sees it. Kafka's metadata partition {@code __cluster_metadata-0} stands for Tideline's metadata quorum;
 * a request naming anything else, or more than that one partition, is answered UNKNOWN_TOPIC_OR_PARTITION for every
 * partition it names, as Kafka's controller does. Any node answers: like a Kafka broker forwarding to the active controller, it asks the
 * Raft leader over the controller client (the leader alone tracks its followers), so every node gives the same
 * answer. A quorum that does not answer within {@link #QUORUM_TIMEOUT_MS} is a top-level REQUEST_TIMED_OUT; the
 * controller client's own errors (NOT_CONTROLLER during an election) travel as they are: both are retriable, and
 * the admin client retries them.
 *
 * <p>How Raft maps to Kafka's fields (docs/kafka-protocol.md, The metadata quorum and features): leader epoch = Raft term; offsets
 * follow Kafka's convention of naming the next offset, so the high watermark is the commit index + 1 and a voter's
 * log end offset its match index + 1. Observers are the brokers that are not voters and heartbeated to this leader,
 * with the metadata offset their last heartbeat reported. Nodes (v2) are the voters' quorum addresses under the
 * listener name {@value #QUORUM_LISTENER}: they speak Ratis, not Kafka's protocol.
 */
final class DescribeQuorumApi extends AbstractKafkaApi {
    static final String METADATA_TOPIC = "__cluster_metadata";
    static final String QUORUM_LISTENER = "RAFT";
    /** How long to wait for the quorum leader's answer; the admin client retries a timeout. */
    static final int QUORUM_TIMEOUT_MS = 5_000;

    private final Supplier<CompletableFuture<ControllerQueryResponse>> describeQuorum;
    private final SortedMap<Integer, InetSocketAddress> voters;

    /**
     * @param describeQuorum asks the Raft leader for its view ({@code ControllerClient::describeQuorum})
     * @param voters         {@code controller.quorum.voters}: node id -> quorum address
     */
    DescribeQuorumApi(Supplier<CompletableFuture<ControllerQueryResponse>> describeQuorum,
                      Map<Integer, InetSocketAddress> voters) {
        super(ApiKeys.DESCRIBE_QUORUM, 0, 2);
        this.describeQuorum = describeQuorum;
        this.voters = new TreeMap<>(voters);
    }

    @Override
    public CompletableFuture<DescribeQuorumResponseData> handle(KafkaRequest request) {
        DescribeQuorumRequestData data = request.body(DescribeQuorumRequestData.class);
        if (!namesTheMetadataPartition(data)) {
            return CompletableFuture.completedFuture(
                    DescribeQuorumRequest.getPartitionLevelErrorResponse(data, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
        short version = request.version();
        return describeQuorum.get()
                .completeOnTimeout(null, QUORUM_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .thenApply(r -> r == null
                        ? topLevelError(Errors.REQUEST_TIMED_OUT,
                                "the metadata quorum did not answer within " + QUORUM_TIMEOUT_MS + " ms")
                        : answer(r, version));
    }

    /** Kafka's rule: exactly one topic, the metadata topic, with exactly one partition, 0. */
    static boolean namesTheMetadataPartition(DescribeQuorumRequestData data) {
        return data.topics().size() == 1 && METADATA_TOPIC.equals(data.topics().get(0).topicName())
                && data.topics().get(0).partitions().size() == 1
                && data.topics().get(0).partitions().get(0).partitionIndex() == 0;
    }

    private DescribeQuorumResponseData answer(ControllerQueryResponse r, short version) {
        if (r.getErrorCode() != Errors.NONE.code() || !r.hasQuorumStatus()) {
            Errors error = r.getErrorCode() == Errors.NONE.code() ? Errors.UNKNOWN_SERVER_ERROR
                    : Errors.forCode((short) r.getErrorCode());
            return topLevelError(error, r.getErrorMessage().isEmpty() ? error.message()
                    : ErrorMessages.bounded(r.getErrorMessage()));
        }
        DescribeQuorumResponseData out = QuorumStates.partition(r.getQuorumStatus(), voters.keySet(), METADATA_TOPIC);
        if (version >= 2) {
            out.setNodes(nodes(voters));
        }
        return out;
    }

    private static DescribeQuorumResponseData.NodeCollection nodes(SortedMap<Integer, InetSocketAddress> voters) {
        DescribeQuorumResponseData.NodeCollection nodes = new DescribeQuorumResponseData.NodeCollection(voters.size());
        voters.forEach((id, address) -> {
            DescribeQuorumResponseData.ListenerCollection listeners = new DescribeQuorumResponseData.ListenerCollection(1);
            listeners.add(new DescribeQuorumResponseData.Listener().setName(QUORUM_LISTENER)
                    .setHost(address.getHostString()).setPort(address.getPort()));
            nodes.add(new DescribeQuorumResponseData.Node().setNodeId(id).setListeners(listeners));
        });
        return nodes;
    }

    private static DescribeQuorumResponseData topLevelError(Errors error, String message) {
        return new DescribeQuorumResponseData().setErrorCode(error.code()).setErrorMessage(message);
    }
}
