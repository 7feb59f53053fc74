package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;

/**
 * Compression codecs as numbered in attribute bits 0-2 of a v2 batch. The store keeps compressed
 * batches as they arrive unless the topic's compression.type names another codec (then the leader
 * re-encodes them: {@link BatchRecompressor}, docs/behaviours.md B210); it decompresses to validate records
 * on the leader and to iterate them in tools, streaming, for every codec Kafka's clients send
 * ({@link RecordCompression}).
 */
public enum CompressionType {
    NONE(0, "none"),
    GZIP(1, "gzip"),
    SNAPPY(2, "snappy"),
    LZ4(3, "lz4"),
    ZSTD(4, "zstd");

    public final int id;
    public final String label;

    CompressionType(int id, String label) {
        this.id = id;
        this.label = label;
    }

    public static CompressionType forId(int id) {
        for (CompressionType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        throw new TidelineException(Errors.CORRUPT_MESSAGE, "Unknown compression type id " + id);
    }
}
