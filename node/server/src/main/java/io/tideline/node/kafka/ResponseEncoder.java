package io.tideline.node.kafka;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Lays out one response frame: size, response header, body (see {@link FrameWriter}). Stateless. */
final class ResponseEncoder {
    private ResponseEncoder() {
    }

    /**
     * The frame of {@code body} at {@code version} with a header at {@code headerVersion}, as Netty messages the
     * caller owns. On failure nothing stays allocated and every {@link SliceRecords} of {@code body} is closed.
     */
    static List<Object> encode(ByteBufAllocator alloc, int correlationId, short headerVersion, ApiMessage body,
                               short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        FrameWriter writer = new FrameWriter(alloc);
        try {
            int size = header.size(cache, headerVersion) + body.size(cache, version);
            writer.writeInt(size);
            header.write(writer, cache, headerVersion);
            body.write(writer, cache, version);
            return writer.finish();
        } catch (RuntimeException e) {
            writer.discard();
            closeSlices(body);
            throw e;
        }
    }

    /**
     * Closes the stored-batch slices of a response that will not be sent (its connection is gone). Fetch is the
     * only served response with a records field; closing twice is harmless (a sent slice is already closed).
     */
    static void closeSlices(ApiMessage body) {
        if (body instanceof FetchResponseData fetch) {
            SliceRecords.closeAll(fetch);
        }
    }
}
