package io.tideline.client;

import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceStub;
import io.tideline.proto.admin.DescribeReplicasRequest;
import io.tideline.proto.admin.DescribeReplicasResponse;
import io.tideline.proto.admin.LocalReplicaView;
import io.tideline.proto.admin.ReplicaPartitionRef;
import io.tideline.proto.admin.ReplicaStatesPartition;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The fan-out of {@link TidelineAdmin#describeReplicas}: one DescribeReplicas to every live broker holding a
 * replica of the partitions asked for, all at once, each bounded by request.timeout.ms, so a broker that is
 * down costs at most one timeout and makes its replicas OFFLINE instead of failing the call. Brokers fenced in
 * the metadata are not asked (their replicas are OFFLINE from the image).
 */
final class ReplicaStatesCall {
    private final BrokerChannels channels;
    private final long timeoutMs;
    private final long slackMs;

    ReplicaStatesCall(BrokerChannels channels, long timeoutMs, long slackMs) {
        this.channels = channels;
        this.timeoutMs = timeoutMs;
        this.slackMs = slackMs;
    }

    static DescribeReplicasRequest request(Collection<TopicPartition> partitions, boolean includeHistory) {
        DescribeReplicasRequest.Builder b = DescribeReplicasRequest.newBuilder().setIncludeIsrHistory(includeHistory);
        partitions.forEach(tp -> b.addPartitions(ReplicaPartitionRef.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition())));
        return b.build();
    }

    /**
     * @param first   any broker's answer for every partition: its image names the replicas
     * @param brokers the brokers' addresses, from Metadata
     */
    Map<TopicPartition, PartitionReplicas> run(Collection<TopicPartition> partitions, DescribeReplicasResponse first,
                                               Map<Integer, BrokerAddress> brokers) {
        Map<TopicPartition, ReplicaStatesPartition> images = new LinkedHashMap<>();
        first.getPartitionsList().forEach(p -> images.put(new TopicPartition(p.getTopic(), p.getPartition()), p));
        Map<Integer, Set<TopicPartition>> byBroker = new TreeMap<>();
        images.forEach((tp, p) -> p.getReplicasList().forEach(r -> {
            if (!p.getOfflineReplicasList().contains(r)) {
                byBroker.computeIfAbsent(r, k -> new LinkedHashSet<>()).add(tp);
            }
        }));
        Map<Integer, CompletableFuture<DescribeReplicasResponse>> calls = new TreeMap<>();
        byBroker.forEach((broker, tps) -> calls.put(broker, send(broker, brokers.get(broker), tps)));
        Map<Integer, DescribeReplicasResponse> answers = new HashMap<>();
        Map<Integer, String> unanswered = new HashMap<>();
        calls.forEach((broker, call) -> {
            String target = "DescribeReplicas to broker " + broker;
            try {
                answers.put(broker, Rpc.await(call, timeoutMs + slackMs, target));
            } catch (TidelineClientException e) {
                unanswered.put(broker, e.getMessage());
            }
        });
        Map<TopicPartition, PartitionReplicas> out = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            ReplicaStatesPartition image = images.get(tp);
            if (image == null) {
                image = ReplicaStatesPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                        .setErrorCode(io.tideline.common.errors.Errors.UNKNOWN_SERVER_ERROR.code())
                        .setErrorMessage("the broker's answer does not mention this partition").build();
            }
            ReplicaStatesPartition leader = null;
            Map<Integer, LocalReplicaView> locals = new HashMap<>();
            for (Map.Entry<Integer, DescribeReplicasResponse> a : answers.entrySet()) {
                for (ReplicaStatesPartition p : a.getValue().getPartitionsList()) {
                    if (!p.getTopic().equals(tp.topic()) || p.getPartition() != tp.partition()) {
                        continue;
                    }
                    if (p.getLeads() && a.getKey() == p.getLeader()) {
                        leader = p;
                    }
                    if (p.hasLocal()) {
                        locals.put(a.getKey(), p.getLocal());
                    }
                }
            }
            out.put(tp, ReplicaStatesJoin.join(tp, leader != null ? leader : image, leader, locals, unanswered));
        }
        return out;
    }

    private CompletableFuture<DescribeReplicasResponse> send(int broker, BrokerAddress address,
                                                             Collection<TopicPartition> tps) {
        String target = "DescribeReplicas to broker " + broker;
        if (address == null) {
            return CompletableFuture.failedFuture(new TidelineClientException(
                    io.tideline.common.errors.Errors.BROKER_NOT_AVAILABLE, "its address is not known"));
        }
        try {
            AdminServiceStub stub = channels.admin(address, timeoutMs);
            return Rpc.call(target, stub::describeReplicas, request(tps, true));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Rpc.transportError(target, e));
        }
    }
}
