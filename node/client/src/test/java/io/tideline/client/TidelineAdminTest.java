package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TidelineAdminTest {
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final FakeCluster cluster = new FakeCluster("admin-test-" + System.nanoTime(), 2);
    private final List<TidelineAdmin> admins = new ArrayList<>();

    @AfterEach
    void tearDown() {
        admins.forEach(TidelineAdmin::close);
        cluster.close();
    }

    private TidelineAdmin admin(String bootstrap, Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("retry.backoff.ms", "10");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        TidelineAdmin admin = new TidelineAdmin(props, Time.SYSTEM, cluster.channels());
        admins.add(admin);
        return admin;
    }

    private void ordersWithTenRecordsPerPartition() {
        cluster.createTopic("orders", 2);
        for (TopicPartition tp : List.of(P0, P1)) {
            for (int i = 0; i < 10; i++) {
                cluster.append(tp, "v" + i);
            }
        }
    }

    @Test
    void deleteRecordsGoesToEachPartitionsLeader() {
        ordersWithTenRecordsPerPartition();
        assertEquals(1, cluster.leader(P0));
        assertEquals(2, cluster.leader(P1));
        Map<TopicPartition, Long> request = new LinkedHashMap<>();
        request.put(P0, 4L);
        request.put(P1, -1L);

        Map<TopicPartition, DeleteRecordsResult> results = admin(cluster.bootstrap()).deleteRecords(request);

        assertEquals(new DeleteRecordsResult(P0, Errors.NONE, "", 4), results.get(P0));
        assertEquals(new DeleteRecordsResult(P1, Errors.NONE, "", 10), results.get(P1));
        assertEquals(List.of(P0, P1), List.copyOf(results.keySet()));
        assertEquals(2, cluster.deleteRecordsCalls.size());
        for (FakeCluster.Received<?> call : cluster.deleteRecordsCalls) {
            var p = (io.tideline.proto.admin.DeleteRecordsPartition) call.request();
            assertEquals(cluster.leader(new TopicPartition(p.getTopic(), p.getPartition())), call.brokerId());
        }
        assertEquals(4, cluster.log(P0).logStartOffset);
    }

    @Test
    void deleteRecordsRetriesOnTheNewLeaderAfterNotLeaderOrFollower() {
        ordersWithTenRecordsPerPartition();
        cluster.moveLeader(P0, 2);
        cluster.reportStaleLeader(P0, 1, 1);

        DeleteRecordsResult result = admin(cluster.bootstrap()).deleteRecords(Map.of(P0, 3L)).get(P0);

        assertEquals(Errors.NONE, result.error());
        assertEquals(3, result.lowWatermark());
        assertEquals(List.of(1, 2), cluster.deleteRecordsCalls.stream().map(FakeCluster.Received::brokerId).toList());
    }

    @Test
    void perPartitionErrorsAreResultsNotExceptions() {
        ordersWithTenRecordsPerPartition();
        TopicPartition missing = new TopicPartition("nope", 0);
        TopicPartition noSuchPartition = new TopicPartition("orders", 7);
        Map<TopicPartition, Long> request = new LinkedHashMap<>();
        request.put(missing, 1L);
        request.put(noSuchPartition, 1L);
        request.put(P0, 50L);

        Map<TopicPartition, DeleteRecordsResult> results = admin(cluster.bootstrap()).deleteRecords(request);

        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(missing).error());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(noSuchPartition).error());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, results.get(P0).error());
        assertEquals(-1, results.get(P0).lowWatermark());
        assertEquals(1, cluster.deleteRecordsCalls.size(), "only the existing partition went to a broker");
    }

    @Test
    void topicsAreCreatedListedAndDescribedWithPerTopicErrors() {
        TidelineAdmin admin = admin(cluster.bootstrap());
        assertTrue(admin.createTopic("orders", 3, 2, Map.of("retention.ms", "1000")).isSuccess());
        TopicResult again = admin.createTopic("orders", 3, 2, Map.of());
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, again.error());
        assertTrue(admin.createTopic("placed", Map.of(0, List.of(2, 1)), Map.of()).isSuccess());

        assertEquals(List.of("orders", "placed"), admin.listTopics());
        List<TopicDescription> described = admin.describeTopics(List.of("placed", "nope"));
        assertEquals(2, described.get(0).partitions().get(0).leader());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, described.get(1).error());
        assertEquals(List.of(1, 2), admin.describeCluster().brokers().stream().map(ClusterDescription.Broker::id)
                .toList());
    }

    @Test
    void anUnreachableClusterIsATransportException() {
        TidelineAdmin admin = admin("nowhere-" + System.nanoTime() + ":9092", "default.api.timeout.ms", "200",
                "request.timeout.ms", "100");
        TidelineClientException e = assertThrows(TidelineClientException.class, admin::listTopics);
        TransportException transport = assertInstanceOf(TransportException.class, e);
        assertEquals(Status.Code.UNAVAILABLE, transport.status());
        assertEquals(Errors.BROKER_NOT_AVAILABLE, transport.error());
    }

    @Test
    void groupCallsFollowNotCoordinatorToTheBrokerItNamesAndStopAfterABoundedNumberOfRedirects() {
        // "a" lives on broker 2, "b" on broker 1; broker 1 and 2 name each other for "loop".
        cluster.groupCoordinator = (broker, group) -> switch (group) {
            case "a" -> 2;
            case "b" -> 1;
            case "loop" -> broker == 1 ? 2 : 1;
            default -> -1;
        };
        TidelineAdmin admin = admin(cluster.bootstrap());
        Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(List.of("a", "b", "loop", "none"));
        assertEquals(List.of("a", "b", "loop", "none"), List.copyOf(described.keySet()), "request order");
        assertEquals(Map.of(P0, 2L), described.get("a").offsets(), "answered by broker 2");
        assertEquals(2, described.get("a").coordinatorId());
        assertEquals(Map.of(P0, 1L), described.get("b").offsets(), "answered by broker 1");
        assertEquals(Errors.NOT_COORDINATOR, described.get("loop").error());
        assertEquals(Errors.GROUP_ID_NOT_FOUND, described.get("none").error());
        // Broker 1 first with all four; then 2 with a and loop; then loop bounces twice more and stays NOT_COORDINATOR.
        assertEquals(List.of(new FakeCluster.Received<>(1, List.of("a", "b", "loop", "none")),
                new FakeCluster.Received<>(2, List.of("a", "loop")), new FakeCluster.Received<>(1, List.of("loop")),
                new FakeCluster.Received<>(2, List.of("loop"))), cluster.groupCalls);

        cluster.groupCalls.clear();
        Map<String, GroupOutcome> deleted = admin.deleteConsumerGroups(List.of("a", "none"));
        assertEquals(Errors.NONE, deleted.get("a").error());
        assertEquals(Errors.GROUP_ID_NOT_FOUND, deleted.get("none").error());
        assertEquals(List.of(1, 2), cluster.groupCalls.stream().map(FakeCluster.Received::brokerId).toList());
    }
}
