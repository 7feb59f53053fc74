package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.common.TopicPartition;
import io.tideline.node.service.LogDirsService;
import io.tideline.store.manager.LogDirDescription;
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
import java.util.function.Predicate;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DescribeLogDirs (v1-5) for this broker's own dirs (clients ask each broker), over
 * {@link LogDirsService#describeLogDirs} (B61): per replica its size and offset lag; null topics is every replica, named
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
        if (data.topics() != null) {
            wanted = new HashMap<>();
            for (DescribableLogDirTopic t : data.topics()) {
                wanted.computeIfAbsent(t.topic(), n -> new java.util.HashSet<>()).addAll(t.partitions());
            }
        }
        Map<String, Set<Integer>> filter = wanted;
        Predicate<TopicPartition> include = filter == null ? tp -> true
                : tp -> filter.getOrDefault(tp.topic(), Set.of()).contains(tp.partition());
        return Answers.call(() -> CompletableFuture.completedFuture(deps.services().logDirs().describeLogDirs(include)))
                .thenApply(r -> {
            DescribeLogDirsResponseData out = new DescribeLogDirsResponseData().setErrorCode(Errors.NONE.code());
            for (LogDirDescription dir : r) {
                DescribeLogDirsResult d = new DescribeLogDirsResult().setLogDir(dir.logDir().toString())
                        .setErrorCode(Answers.code(dir.error().code())).setTopics(new ArrayList<>());
                Map<String, DescribeLogDirsTopic> topics = new LinkedHashMap<>();
                for (LogDirDescription.Replica p : dir.partitions()) {
                    topics.computeIfAbsent(p.topicPartition().topic(), n -> new DescribeLogDirsTopic().setName(n)
                            .setPartitions(new ArrayList<>())).partitions().add(new DescribeLogDirsPartition()
                            .setPartitionIndex(p.topicPartition().partition()).setPartitionSize(p.sizeBytes())
                            .setOffsetLag(p.offsetLag()).setIsFutureKey(p.isFuture()));
                }
                d.setTopics(new ArrayList<>(topics.values()));
                if (dir.error() == io.tideline.common.errors.Errors.NONE) {
                    space(d, dir.logDir());
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
