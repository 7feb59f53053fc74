package io.tideline.node.fuzz;

import io.tideline.common.TopicPartition;
import io.tideline.node.kafka.KafkaApis;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Sends the fuzzer's Kafka frames to one node's Kafka listener and reads what comes back. The request is parsed
 * here as the node parses it (kafka-clients' {@code RequestHeader.parse} and {@code AbstractRequest.parseRequest}),
 * so that the oracle knows what a frame asked for: which partitions a Produce may append to, which DeleteRecords
 * may move, which topics a DeleteTopics may delete, and only where the answer says NONE.
 *
 * <p>A connection is reused while the frames on it are answered; one that the node closed, or that owes an answer
 * or bytes of a frame, is reset (SO_LINGER 0, so that 100,000 steps leave no TIME_WAIT behind). Not thread-safe.
 */
final class KafkaTarget implements AutoCloseable {
    /** What a step's frame got. */
    enum Outcome { ANSWERED, CLOSED_BY_NODE, NO_ANSWER }

    /** The outcome and, for the oracle, what the request may change. */
    record Result(Outcome outcome, LogOracle.Permits permits, String parsedAs, String untypedError) {
        Result(Outcome outcome, LogOracle.Permits permits, String parsedAs) {
            this(outcome, permits, parsedAs, null);
        }
    }

    private final int port;
    private final int answerWaitMs;
    private final Supplier<MetadataImage> image;
    private final KafkaApis served;
    private Socket socket;

    KafkaTarget(int port, int answerWaitMs, Supplier<MetadataImage> image, KafkaApis served) {
        this.port = port;
        this.answerWaitMs = answerWaitMs;
        this.image = image;
        this.served = served;
    }

    /** The request in {@code frame} as the node would parse it, or empty when the node could not. */
    static Optional<ParsedRequest> parse(byte[] frame) {
        try {
            ByteBuffer b = ByteBuffer.wrap(frame);
            int size = b.getInt();
            if (size < 0 || size > b.remaining()) {
                return Optional.empty(); // the node waits for bytes that never come, or refuses the size
            }
            ByteBuffer payload = b.slice(4, size);
            RequestHeader header = RequestHeader.parse(payload);
            AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                    new ByteBufferAccessor(payload)).request;
            // Bytes after the body close the connection (docs/kafka-protocol.md, "Bad input").
            return payload.hasRemaining() ? Optional.empty() : Optional.of(new ParsedRequest(header, request));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A request kafka-clients could read. */
    record ParsedRequest(RequestHeader header, AbstractRequest request) {
    }

    /**
     * Sends {@code frame} and waits up to the answer bound for its answer or for the node to close. The socket
     * of an unanswered frame stays open until {@link #resetIfOwed}, so the health check runs while the node
     * still holds whatever that frame made it hold.
     */
    Result send(byte[] frame) throws IOException {
        // A version the node does not serve is answered with an error and reaches no API.
        Optional<ParsedRequest> parsed = parse(frame)
                .filter(p -> served.serves(p.header().apiKey(), p.header().apiVersion()));
        LogOracle.Permits permits = new LogOracle.Permits();
        if (socket == null) {
            open();
        }
        String parsedAs = parsed.map(p -> p.header().apiKey() + " v" + p.header().apiVersion()).orElse("unparseable");
        try {
            socket.getOutputStream().write(frame);
            socket.getOutputStream().flush();
        } catch (IOException e) {
            // The node closed this connection before (a previous frame's answer was its last): try a fresh one.
            resetSocket();
            open();
            try {
                socket.getOutputStream().write(frame);
                socket.getOutputStream().flush();
            } catch (IOException closedWhileWriting) {
                // The node read enough of this frame to refuse it and closed while the rest was being written
                // (a size field it does not take, B79): nothing of the frame was handled.
                resetSocket();
                return new Result(Outcome.CLOSED_BY_NODE, permits, parsedAs);
            }
        }
        if (parsed.isPresent() && isAcksZeroProduce(parsed.get())) {
            permitNamed(parsed.get(), permits);
        }
        byte[] answer;
        try {
            socket.setSoTimeout(answerWaitMs);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 0 || size > 64 * 1024 * 1024) {
                throw new IOException("the node answered with a size field of " + size);
            }
            answer = new byte[size];
            in.readFully(answer);
        } catch (SocketTimeoutException e) {
            parsed.ifPresent(p -> permitNamed(p, permits)); // its outcome is unknown: it may still complete
            return new Result(Outcome.NO_ANSWER, permits, parsedAs);
        } catch (IOException e) {
            // A frame that parsed may have been handled before the node closed the connection: bytes after its
            // declared size are read as the next frame, and an unreadable one closes the connection whether or
            // not the first one's answer went out. Its outcome is unknown, as an unanswered one's.
            parsed.ifPresent(p -> permitNamed(p, permits));
            resetSocket();
            return new Result(Outcome.CLOSED_BY_NODE, permits, parsedAs);
        }
        String untyped = parsed.isPresent() ? readPermits(parsed.get(), answer, permits) : null;
        int declared = ByteBuffer.wrap(frame).getInt(0);
        if (declared != frame.length - 4) {
            resetSocket(); // the rest of the bytes would be read as another frame
        }
        return new Result(Outcome.ANSWERED, permits, parsedAs, untyped);
    }

    /** Closes the connection of a frame still unanswered, after the health check. */
    void resetIfOwed(Result result) {
        if (result.outcome() == Outcome.NO_ANSWER) {
            resetSocket();
        }
    }

    private static boolean isAcksZeroProduce(ParsedRequest p) {
        return p.request() instanceof ProduceRequest produce && produce.acks() == 0;
    }

    private void permitNamed(ParsedRequest p, LogOracle.Permits permits) {
        if (p.request() instanceof ProduceRequest produce) {
            for (ProduceRequestData.TopicProduceData t : produce.data().topicData()) {
                Optional<String> name = topicName(t.name(), t.topicId());
                name.ifPresent(n -> t.partitionData().forEach(pd -> permits.append(n, pd.index())));
            }
        } else if (p.request() instanceof DeleteRecordsRequest delete) {
            for (DeleteRecordsRequestData.DeleteRecordsTopic t : delete.data().topics()) {
                t.partitions().forEach(pd -> permits.deleteRecords(t.name(), pd.partitionIndex(),
                        Long.MAX_VALUE));
            }
        } else if (p.request() instanceof DeleteTopicsRequest delete) {
            delete.data().topicNames().forEach(permits::deleteTopic);
            for (DeleteTopicsRequestData.DeleteTopicState t : delete.data().topics()) {
                topicName(t.name(), t.topicId()).ifPresent(permits::deleteTopic);
            }
        }
    }

    /**
     * Fills {@code permits} from the answer; returns a description of an answer that is not a typed error
     * (UNKNOWN_SERVER_ERROR anywhere in it, or bytes kafka-clients cannot read as the answer), else null.
     */
    private String readPermits(ParsedRequest p, byte[] answer, LogOracle.Permits permits) {
        ApiKeys key = p.header().apiKey();
        AbstractResponse response;
        try {
            response = AbstractResponse.parseResponse(ByteBuffer.wrap(answer), p.header());
        } catch (RuntimeException e) {
            return "the answer to " + key + " v" + p.header().apiVersion() + " does not parse: " + e;
        }
        String untyped = response.errorCounts().containsKey(Errors.UNKNOWN_SERVER_ERROR)
                ? "UNKNOWN_SERVER_ERROR in the answer: " + response.data() : null;
        if (response.data() instanceof ProduceResponseData produce) {
            for (ProduceResponseData.TopicProduceResponse t : produce.responses()) {
                Optional<String> name = topicName(t.name(), t.topicId());
                for (ProduceResponseData.PartitionProduceResponse pr : t.partitionResponses()) {
                    if (pr.errorCode() == Errors.NONE.code()) {
                        name.ifPresent(n -> permits.append(n, pr.index()));
                    }
                }
            }
        } else if (response.data() instanceof DeleteRecordsResponseData delete) {
            for (DeleteRecordsResponseData.DeleteRecordsTopicResult t : delete.topics()) {
                for (DeleteRecordsResponseData.DeleteRecordsPartitionResult pr : t.partitions()) {
                    if (pr.errorCode() == Errors.NONE.code() || pr.errorCode() == Errors.REQUEST_TIMED_OUT.code()) {
                        permits.deleteRecords(t.name(), pr.partitionIndex(), pr.lowWatermark());
                    }
                }
            }
        } else if (response.data() instanceof DeleteTopicsResponseData delete) {
            for (DeleteTopicsResponseData.DeletableTopicResult t : delete.responses()) {
                if (t.errorCode() == Errors.NONE.code()) {
                    topicName(t.name(), t.topicId()).ifPresent(permits::deleteTopic);
                }
            }
        }
        return untyped;
    }

    /** A topic's name from a request or answer naming it by name (older versions) or by id (newer ones). */
    private Optional<String> topicName(String name, Uuid id) {
        if (name != null && !name.isEmpty()) {
            return Optional.of(name);
        }
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return Optional.empty();
        }
        return image.get().topicById(id.toString()).map(TopicImage::name);
    }

    private void open() throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoLinger(true, 0);
        socket.setTcpNoDelay(true);
    }

    private void resetSocket() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // already gone
            }
            socket = null;
        }
    }

    @Override
    public void close() {
        resetSocket();
    }
}
