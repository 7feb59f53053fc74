package io.tideline.node.kafka;

import java.net.InetSocketAddress;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A parsed request of the Kafka listener: its header (API key, version, correlation id, client id), its body
 * (the generated {@code *RequestData} of that key) and the connection's peer.
 */
public record KafkaRequest(RequestHeader header, ApiMessage body, InetSocketAddress peer) {

    public short version() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId();
    }

    /** The body as its generated class, e.g. {@code request.body(ProduceRequestData.class)}. */
    public <T extends ApiMessage> T body(Class<T> type) {
        return type.cast(body);
    }
}
