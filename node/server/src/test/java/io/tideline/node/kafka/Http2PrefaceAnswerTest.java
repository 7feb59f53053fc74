package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2PrefaceAnswer} on an embedded channel: what a gRPC client gets on the Kafka listener, and that a
 * Kafka client's bytes reach the connection behind it unchanged (docs/behaviours.md B230).
 */
class Http2PrefaceAnswerTest {
    private static final String GRPC = "127.0.0.1:9392";
    private static final byte[] CLIENT_SETTINGS = frame(0x4, 0, new byte[12]);
    private static final byte[] WINDOW_UPDATE = frame(0x8, 0, new byte[] {0, 0x0f, 0, 1});

    @Test
    void aGrpcClientGetsSettingsThenGoAwayNamingTheGrpcAddressOnceItOpensAStream() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(buf(concat(Http2PrefaceAnswer.PREFACE, CLIENT_SETTINGS, WINDOW_UPDATE)));
        ByteBuf settings = ch.readOutbound();
        assertEquals(frameHeader(0, 0x4, 0), hexOf(settings));
        assertNull(ch.readOutbound(), "GOAWAY waits for the first stream");

        ch.writeInbound(buf(frame(0x1, 3, new byte[40])));
        GoAway goAway = goAway(ch.readOutbound());
        assertEquals(3, goAway.lastStreamId, "the call is processed, so gRPC does not retry it elsewhere");
        assertEquals(1, goAway.errorCode, "PROTOCOL_ERROR");
        assertEquals(Http2PrefaceAnswer.message(GRPC), goAway.debugData);
        assertTrue(goAway.debugData.startsWith("this is Tideline's Kafka listener"), goAway.debugData);
        assertTrue(goAway.debugData.endsWith("is on " + GRPC), goAway.debugData);
        assertTrue(ch.inboundMessages().isEmpty(), "nothing reaches the Kafka connection");
    }

    @Test
    void aPrefaceArrivingOneByteAtATimeIsRecognised() {
        EmbeddedChannel ch = channel();
        byte[] all = concat(Http2PrefaceAnswer.PREFACE, CLIENT_SETTINGS, frame(0x1, 1, new byte[5]));
        for (byte b : all) {
            ch.writeInbound(buf(new byte[] {b}));
        }
        assertEquals(frameHeader(0, 0x4, 0), hexOf(ch.readOutbound()));
        assertEquals(1, goAway(ch.readOutbound()).lastStreamId);
        assertTrue(ch.inboundMessages().isEmpty());
    }

    @Test
    void aClientThatOpensNoStreamIsToldAfterTheWait() {
        EmbeddedChannel ch = channel();
        ch.freezeTime();
        ch.writeInbound(buf(concat(Http2PrefaceAnswer.PREFACE, CLIENT_SETTINGS)));
        ch.readOutbound();
        ch.advanceTimeBy(Http2PrefaceAnswer.AWAIT_STREAM_MS - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertNull(ch.readOutbound());
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        GoAway goAway = goAway(ch.readOutbound());
        assertEquals(0, goAway.lastStreamId);
        assertEquals(Http2PrefaceAnswer.message(GRPC), goAway.debugData);

        assertTrue(ch.isOpen(), "lingers so that the client reads the GOAWAY before the connection closes");
        ch.advanceTimeBy(Http2PrefaceAnswer.LINGER_MS, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
    }

    @Test
    void framesWithoutAStreamAreReadOnlyUpToTheBound() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(buf(Http2PrefaceAnswer.PREFACE));
        ch.readOutbound();
        // A DATA frame header declaring more than the bound: its payload is not waited for.
        ch.writeInbound(buf(frameHeaderBytes(Http2PrefaceAnswer.MAX_FRAME_BYTES, 0x0, 1)));
        assertEquals(0, goAway(ch.readOutbound()).lastStreamId);
    }

    @Test
    void aKafkaRequestPassesThroughUnchangedAndTheHandlerLeaves() {
        EmbeddedChannel ch = channel();
        byte[] request = {0, 0, 0, 10, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0};
        ch.writeInbound(buf(request));
        assertEquals(hex(request), hexOf(readAllInbound(ch)));
        assertNull(ch.pipeline().get(Http2PrefaceAnswer.class));
        assertNull(ch.readOutbound(), "nothing is written to a Kafka client");
    }

    @Test
    void bytesThatStartLikeThePrefaceAndThenDifferAreHandedOnInOrder() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(buf("PR".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(ch.inboundMessages().isEmpty(), "held while it may still be the preface");
        ch.writeInbound(buf("I * HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("PRI * HTTP/1.1\r\n", readAllInbound(ch).toString(StandardCharsets.US_ASCII));
        assertNull(ch.pipeline().get(Http2PrefaceAnswer.class));
        assertNull(ch.readOutbound());
    }

    @Test
    void heldBytesAreReleasedWhenTheConnectionCloses() {
        EmbeddedChannel ch = channel();
        ByteBuf part = buf("PRI *".getBytes(StandardCharsets.US_ASCII));
        ch.writeInbound(part);
        assertEquals(0, part.refCnt(), "copied into the handler's buffer of at most 24 bytes");
        ch.close();
        assertFalse(ch.finish());
    }

    private static EmbeddedChannel channel() {
        return new EmbeddedChannel(new Http2PrefaceAnswer(GRPC, new OncePerAddress()));
    }

    private static ByteBuf readAllInbound(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        ByteBuf b;
        while ((b = ch.readInbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        return all;
    }

    private record GoAway(int lastStreamId, int errorCode, String debugData) {
    }

    private static GoAway goAway(ByteBuf out) {
        int length = out.readUnsignedMedium();
        assertEquals(0x7, out.readByte(), "GOAWAY");
        out.readByte();
        assertEquals(0, out.readInt(), "on the connection, stream 0");
        int last = out.readInt();
        int code = out.readInt();
        String debug = out.readCharSequence(length - 8, StandardCharsets.UTF_8).toString();
        assertFalse(out.isReadable());
        out.release();
        return new GoAway(last, code, debug);
    }

    private static byte[] frame(int type, int streamId, byte[] payload) {
        return concat(frameHeaderBytes(payload.length, type, streamId), payload);
    }

    private static byte[] frameHeaderBytes(int length, int type, int streamId) {
        return new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, 0,
                (byte) (streamId >>> 24), (byte) (streamId >>> 16), (byte) (streamId >>> 8), (byte) streamId};
    }

    private static String frameHeader(int length, int type, int streamId) {
        return hex(frameHeaderBytes(length, type, streamId));
    }

    private static byte[] concat(byte[]... parts) {
        List<Byte> all = new ArrayList<>();
        for (byte[] p : parts) {
            for (byte b : p) {
                all.add(b);
            }
        }
        byte[] out = new byte[all.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = all.get(i);
        }
        return out;
    }

    private static ByteBuf buf(byte[] bytes) {
        return Unpooled.copiedBuffer(bytes);
    }

    private static String hex(byte[] bytes) {
        return io.netty.buffer.ByteBufUtil.hexDump(bytes);
    }

    private static String hexOf(ByteBuf buf) {
        String h = io.netty.buffer.ByteBufUtil.hexDump(buf);
        buf.release();
        return h;
    }
}
