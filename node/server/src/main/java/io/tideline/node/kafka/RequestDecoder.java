package io.tideline.node.kafka;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Turns one request frame (the bytes after the size field) into what the connection does with it, with
 * kafka-clients' header parser and generated request classes. Stateless.
 *
 * <ul>
 *   <li>A header that does not parse, an API key not registered, a body that does not parse at its version,
 *       bytes left after it, or (but for Produce and Fetch) a string that does not write back: {@link Malformed},
 *       and the connection closes (as Kafka closes on a request it cannot read; nothing of it reaches an API).</li>
 *   <li>ApiVersions at a version not served: answered at version 0 with UNSUPPORTED_VERSION and the whole table,
 *       so the client retries at a version both know (what Kafka does).</li>
 *   <li>Another registered key at a version not served but known to kafka-clients: its error response with
 *       UNSUPPORTED_VERSION at that version; at a version kafka-clients cannot read or write: Malformed.</li>
 * </ul>
 */
final class RequestDecoder {
    private RequestDecoder() {
    }

    sealed interface Decoded permits Malformed, Immediate, Dispatch {
    }

    /** Close the connection; {@code reason} is for the one log line. */
    record Malformed(String reason) implements Decoded {
    }

    /** Answer {@code response} at {@code version} without calling an API. */
    record Immediate(RequestHeader header, short version, ApiMessage response) implements Decoded {
    }

    /** Hand {@code request} to {@code api}; {@code parsed} builds the error response if it fails. */
    record Dispatch(KafkaApi api, KafkaRequest request, AbstractRequest parsed) implements Decoded {
    }

    static Decoded decode(ByteBuffer frame, KafkaApis apis, InetSocketAddress peer) {
        RequestHeader header;
        try {
            header = RequestHeader.parse(frame);
        } catch (RuntimeException e) {
            return new Malformed("unreadable request header (" + e.getMessage() + ")");
        }
        ApiKeys key = header.apiKey();
        short version = header.apiVersion();
        if (apis.get(key).isEmpty()) {
            return new Malformed("API " + key.name + " (key " + key.id + ") is not served");
        }
        if (key == ApiKeys.API_VERSIONS && !apis.serves(key, version)) {
            return new Immediate(header, (short) 0, new ApiVersionsResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(apis.versions()));
        }
        if (!key.isVersionSupported(version)) {
            return new Malformed(key.name + " v" + version + " is not a version kafka-clients knows");
        }
        AbstractRequest parsed;
        try {
            parsed = AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(frame)).request;
        } catch (RuntimeException e) {
            return new Malformed("unreadable " + key.name + " v" + version + " body (" + e + ")");
        }
        if (frame.hasRemaining()) {
            return new Malformed(frame.remaining() + " bytes after the " + key.name + " v" + version + " body");
        }
        if (key != ApiKeys.PRODUCE && key != ApiKeys.FETCH) {
            // Bytes that are not UTF-8 read as replacement characters, so a string can come out longer than the
            // 32767 bytes a string may take on the wire: an answer echoing it (a topic or group name) could not be
            // written after the request had acted. Such a body is unreadable (B79). Produce and Fetch only echo
            // names they found nothing under, so the data path skips this walk.
            try {
                parsed.data().size(new ObjectSerializationCache(), version);
            } catch (RuntimeException e) {
                return new Malformed(key.name + " v" + version + " body holds a string that cannot be written back ("
                        + e.getMessage() + ")");
            }
        }
        if (!apis.serves(key, version)) {
            KafkaApi api = apis.get(key).orElseThrow();
            return new Immediate(header, version, parsed.getErrorResponse(0, new UnsupportedVersionException(
                    key.name + " v" + version + " is not served (" + api.minVersion() + "-" + api.maxVersion() + ")"))
                    .data());
        }
        return new Dispatch(apis.get(key).orElseThrow(), new KafkaRequest(header, parsed.data(), peer), parsed);
    }
}
