package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Raw Kafka frames over a plain socket, for tests that send what no client would: frame and header builders and a
 * connection that reads one response or waits for the node to close.
 */
final class KafkaWire implements AutoCloseable {
    /** How long a test waits for an answer or for the node to close the connection. */
    static final int READ_TIMEOUT_MS = 10_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    KafkaWire(int port) throws IOException {
        this(port, "127.0.0.1");
    }

    /** A connection from {@code localAddress}, another loopback address (127.0.0.2, ...), to 127.0.0.1. */
    KafkaWire(int port, String localAddress) throws IOException {
        socket = new Socket(java.net.InetAddress.getByName("127.0.0.1"), port,
                java.net.InetAddress.getByName(localAddress), 0);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** {@code payload} behind its size field. */
    static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    /** The bytes of {@code parts} one after another. */
    static byte[] concat(byte[]... parts) {
        int size = 0;
        for (byte[] p : parts) {
            size += p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }

    /** A request header written by hand (v1, no tagged fields; v2 adds an empty tagged-field section). */
    static byte[] header(int apiKey, int version, int correlationId, String clientId, boolean flexible) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(10 + id.length + (flexible ? 1 : 0)).putShort((short) apiKey)
                .putShort((short) version).putInt(correlationId).putShort((short) id.length).put(id);
        if (flexible) {
            b.put((byte) 0);
        }
        return b.array();
    }

    /** A well-formed request as kafka-clients writes it (header and body, no size field). */
    static byte[] request(AbstractRequest request, int correlationId) {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "wire-test", correlationId);
        ByteBuffer b = request.serializeWithHeader(header);
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    static RequestHeader headerOf(AbstractRequest request, int correlationId) {
        return new RequestHeader(request.apiKey(), request.version(), "wire-test", correlationId);
    }

    /** How long {@link #read} and {@link #assertClosedByNode} wait from now on. */
    void readTimeout(int ms) throws IOException {
        socket.setSoTimeout(ms);
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends nothing more: the node sees the end of the stream. */
    void halfClose() throws IOException {
        socket.shutdownOutput();
    }

    /** The next response, parsed for the request {@code header} named (correlation id checked by kafka-clients). */
    AbstractResponse read(RequestHeader header) throws IOException {
        int size = in.readInt();
        byte[] body = new byte[size];
        in.readFully(body);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
    }

    /** Fails unless the node closes the connection (end of stream or reset) with no further bytes. */
    void assertClosedByNode() throws IOException {
        try {
            int b = in.read();
            assertEquals(-1, b, "the node sent bytes instead of closing the connection");
        } catch (SocketTimeoutException e) {
            fail("the node neither answered nor closed the connection within " + READ_TIMEOUT_MS + " ms");
        } catch (SocketException | EOFException e) {
            // reset: closed as well
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
