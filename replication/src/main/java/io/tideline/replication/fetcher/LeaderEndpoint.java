package io.tideline.replication.fetcher;

import io.tideline.common.TopicPartition;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The network link from a follower to one leader broker. The gRPC implementation is
 * {@link io.tideline.replication.rpc.GrpcLeaderEndpoint}; tests may wrap one to cut a single link.
 */
public interface LeaderEndpoint {

    /**
     * Sends one replica fetch. The future fails (exceptionally) when the leader cannot be reached; a
     * per-partition error comes back inside the answer.
     */
    CompletableFuture<Map<TopicPartition, FetchResponseData>> fetch(int replicaId, List<FollowerFetch> partitions,
                                                                    int minBytes, int maxBytes, int maxWaitMs);
}
