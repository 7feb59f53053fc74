package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.proto.admin.DescribeLogDirsRequest;
import io.tideline.proto.admin.LogDirInfo;
import io.tideline.proto.admin.LogDirReplica;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DescribeLogDirs (v1-5) for this broker's own dirs (clients ask each broker), over the gRPC admin
 * service's DescribeLogDirs (B61): per replica its size and offset lag; null topics is every replica, named
 * topics only their named partitions. v4+ carries the file store's total and usable bytes (-1 when the dir
 * cannot be asked, e.g. it is offline); v5's cordoned flag is always false (no dir is cordoned).
 */
final class DescribeLogDirsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    DescribeLogDirsApi(AdminDeps deps) {
        super(ApiKeys.DESCRIBE_LOG_DIRS, 1, 5);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<DescribeLogDirsResponseData> handle(KafkaRequest request) {
        DescribeLogDirsRequestData data = request.body(DescribeLogDirsRequestData.class);
        // null: everything; otherwise topic -> the partitions asked for (an empty collection asks for none).
        Map<String, Set<Integer>> wanted = null;
        DescribeLogDirsRequest.Builder grpc = DescribeLogDirsRequest.newBuilder();
        if (data.topics() != null) {
            wanted = new HashMap<>();
            for (DescribableLogDirTopic t : data.topics()) {
                wanted.computeIfAbsent(t.topic(), n -> new java.util.HashSet<>()).addAll(t.partitions());
            }
            // The gRPC call reads "no topics" as "all"; ask for a name no topic can have instead.
            grpc.addAllTopics(wanted.isEmpty() ? Set.of("") : wanted.keySet());
        }
        Map<String, Set<Integer>> filter = wanted;
        return GrpcCall.call(deps.admin()::describeLogDirs, grpc.build()).thenApply(r -> {
            DescribeLogDirsResponseData out = new DescribeLogDirsResponseData().setErrorCode(Errors.NONE.code());
            for (LogDirInfo dir : r.getLogDirsList()) {
                DescribeLogDirsResult d = new DescribeLogDirsResult().setLogDir(dir.getLogDir())
                        .setErrorCode(Answers.code(dir.getErrorCode())).setTopics(new ArrayList<>());
                Map<String, DescribeLogDirsTopic> topics = new LinkedHashMap<>();
                for (LogDirReplica p : dir.getReplicasList()) {
                    if (filter != null && !filter.getOrDefault(p.getTopic(), Set.of()).contains(p.getPartition())) {
                        continue;
                    }
                    topics.computeIfAbsent(p.getTopic(), n -> new DescribeLogDirsTopic().setName(n)
                            .setPartitions(new ArrayList<>())).partitions().add(new DescribeLogDirsPartition()
                            .setPartitionIndex(p.getPartition()).setPartitionSize(p.getSizeBytes())
                            .setOffsetLag(p.getOffsetLag()).setIsFutureKey(p.getIsFuture()));
                }
                d.setTopics(new ArrayList<>(topics.values()));
                if (dir.getErrorCode() == 0) {
                    space(d, Path.of(dir.getLogDir()));
                }
                out.results().add(d);
            }
            return out;
        });
    }

    private static void space(DescribeLogDirsResult d, Path dir) {
        try {
            FileStore store = Files.getFileStore(dir);
            d.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
        } catch (IOException | SecurityException e) {
            d.setTotalBytes(-1).setUsableBytes(-1);
        }
    }
}
