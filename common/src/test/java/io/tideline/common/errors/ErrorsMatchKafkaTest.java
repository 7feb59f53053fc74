package io.tideline.common.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Our error names and codes are Kafka's: the Kafka listener writes our codes into Kafka's responses and
 * operators read our names in logs, CLI lines and metrics labels, so each must be the one kafka-clients'
 * {@code Errors} gives for the same code. (Whether an error is retriable stays ours: our clients and the
 * broker's registration retry BROKER_NOT_AVAILABLE, which Kafka's enum calls not retriable.)
 */
class ErrorsMatchKafkaTest {

    @Test
    void everyNameAndCodeIsKafkas() {
        for (Errors ours : Errors.values()) {
            org.apache.kafka.common.protocol.Errors kafka = org.apache.kafka.common.protocol.Errors.forCode(ours.code());
            assertEquals(ours.code(), kafka.code(), ours + ": kafka-clients has no error with code " + ours.code());
            assertEquals(kafka.name(), ours.name(), "code " + ours.code());
        }
    }

    @Test
    void codesAreDistinct() {
        Set<Short> seen = new HashSet<>();
        for (Errors e : Errors.values()) {
            assertEquals(true, seen.add(e.code()), "code " + e.code() + " twice");
        }
        assertNotEquals(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode(Errors.MESSAGE_TOO_LARGE.code()));
    }

    @Test
    void forCodeFindsEachErrorAndCallsAnyOtherCodeUnknown() {
        for (Errors e : Errors.values()) {
            assertEquals(e, Errors.forCode(e.code()));
        }
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode(11), "a code Kafka has and we do not");
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode(1 << 16),
                "an int beyond a short is not truncated onto NONE");
    }
}
