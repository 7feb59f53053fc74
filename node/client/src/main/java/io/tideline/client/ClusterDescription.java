package io.tideline.client;

import java.util.List;

/** The brokers a Metadata answer lists, and the metadata quorum's leader (-1 when unknown). */
public record ClusterDescription(String clusterId, int controllerId, List<Broker> brokers) {

    public record Broker(int id, String host, int port, String rack, boolean fenced) {
    }
}
