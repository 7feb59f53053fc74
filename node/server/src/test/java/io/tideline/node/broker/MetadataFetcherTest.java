package io.tideline.node.broker;

import static io.tideline.node.broker.Images.created;
import static io.tideline.node.broker.Images.fourBrokers;
import static io.tideline.node.broker.Images.partition;
import static io.tideline.node.broker.Images.replay;
import static io.tideline.node.broker.Images.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerQueryResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetadataFetcherTest {
    private static final long INTERVAL_MS = 500;
    private static final long STALL_MS = 5_000;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<MetadataDelta> deltas = new ArrayList<>();
    private final BrokerMetadataPublisher publisher = new BrokerMetadataPublisher(1, (d, image) -> deltas.add(d));

    /** Records each fetch's known offset; the test completes the futures. */
    private final List<Long> requestedOffsets = new ArrayList<>();
    private final List<CompletableFuture<ControllerQueryResponse>> pending = new ArrayList<>();
    private final ImageSource source = knownOffset -> {
        requestedOffsets.add(knownOffset);
        CompletableFuture<ControllerQueryResponse> f = new CompletableFuture<>();
        pending.add(f);
        return f;
    };

    private final MetadataFetcher fetcher = new MetadataFetcher(source, publisher, scheduler, time, INTERVAL_MS,
            STALL_MS);

    private static final MetadataImage BROKERS = fourBrokers();
    private static final MetadataImage WITH_TOPIC = replay(BROKERS, 11, topic("t", "T"),
            created(partition("T", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));

    @AfterEach
    void close() {
        fetcher.close();
        assertTrue(scheduler.failures().isEmpty(), scheduler.failures().toString());
    }

    private static ControllerQueryResponse withImage(MetadataImage image) {
        return ControllerQueryResponse.newBuilder().setIsLeader(true).setImage(ImageSerde.toSnapshot(image)).build();
    }

    private static ControllerQueryResponse unchanged() {
        return ControllerQueryResponse.newBuilder().setIsLeader(true).build();
    }

    private CompletableFuture<ControllerQueryResponse> last() {
        return pending.get(pending.size() - 1);
    }

    @Test
    void fetchesAtOnceThenEveryIntervalAndPublishesNewerImages() {
        fetcher.start();
        scheduler.tick();
        assertEquals(List.of(0L), requestedOffsets);
        last().complete(withImage(BROKERS));
        assertEquals(10, fetcher.knownOffset());
        assertEquals(1, deltas.size());
        assertTrue(deltas.get(0).unfenced());

        time.advance(INTERVAL_MS);
        assertEquals(List.of(0L, 10L), requestedOffsets);
        last().complete(unchanged());
        assertEquals(1, deltas.size(), "no payload, nothing to publish");

        time.advance(INTERVAL_MS);
        assertEquals(List.of(0L, 10L, 10L), requestedOffsets);
        last().complete(withImage(WITH_TOPIC));
        assertEquals(11, fetcher.knownOffset());
        assertEquals(2, deltas.size());
        assertEquals(1, deltas.get(1).partitionsToLead().size());
        assertEquals(0, fetcher.consecutiveFailures());
    }

    @Test
    void anImageThatIsNotNewerIsIgnored() {
        fetcher.start();
        scheduler.tick();
        last().complete(withImage(WITH_TOPIC));
        time.advance(INTERVAL_MS);
        // e.g. a lagging voter answered with an older image
        last().complete(withImage(BROKERS));
        assertEquals(11, fetcher.knownOffset());
        assertEquals(1, deltas.size());
    }

    @Test
    void errorsAreRetriedNextPeriod() {
        fetcher.start();
        scheduler.tick();
        last().complete(ControllerQueryResponse.newBuilder().setErrorCode(Errors.NOT_CONTROLLER.code())
                .setErrorMessage("no leader yet").build());
        assertEquals(1, fetcher.consecutiveFailures());

        time.advance(INTERVAL_MS);
        last().completeExceptionally(new java.io.IOException("connection refused"));
        assertEquals(2, fetcher.consecutiveFailures());

        time.advance(INTERVAL_MS);
        assertEquals(List.of(0L, 0L, 0L), requestedOffsets);
        last().complete(withImage(BROKERS));
        assertEquals(0, fetcher.consecutiveFailures());
        assertEquals(10, fetcher.knownOffset());
    }

    @Test
    void aSourceThatThrowsIsAFailedFetch() {
        MetadataFetcher throwing = new MetadataFetcher(knownOffset -> {
            throw new IllegalStateException("client closed");
        }, publisher, scheduler, time, INTERVAL_MS);
        throwing.start();
        scheduler.tick();
        time.advance(INTERVAL_MS);
        assertEquals(2, throwing.consecutiveFailures());
        throwing.close();
    }

    @Test
    void aRefusedImageIsFetchedAgain() {
        boolean[] refuse = {true};
        BrokerMetadataPublisher refusing = new BrokerMetadataPublisher(1, (d, image) -> {
            if (refuse[0]) {
                throw new IllegalStateException("replica manager not ready");
            }
        });
        MetadataFetcher f = new MetadataFetcher(source, refusing, scheduler, time, INTERVAL_MS, STALL_MS);
        f.start();
        scheduler.tick();
        last().complete(withImage(BROKERS));
        assertEquals(1, f.consecutiveFailures());
        assertEquals(0, f.knownOffset());

        refuse[0] = false;
        time.advance(INTERVAL_MS);
        assertEquals(List.of(0L, 0L), requestedOffsets);
        last().complete(withImage(BROKERS));
        assertEquals(10, f.knownOffset());
        f.close();
    }

    @Test
    void oneFetchInFlightUntilItStalls() {
        fetcher.start();
        scheduler.tick();
        time.advance(INTERVAL_MS * 3);
        assertEquals(1, requestedOffsets.size(), "periods are skipped while a fetch is unanswered");

        time.advance(STALL_MS);
        assertEquals(2, requestedOffsets.size(), "a stalled fetch is abandoned");
        CompletableFuture<ControllerQueryResponse> stalled = pending.get(0);

        last().complete(withImage(WITH_TOPIC));
        assertEquals(11, fetcher.knownOffset());
        // The abandoned fetch answers late with an older image: harmless.
        stalled.complete(withImage(BROKERS));
        assertEquals(11, fetcher.knownOffset());
        assertEquals(1, deltas.size());

        time.advance(INTERVAL_MS);
        assertEquals(3, requestedOffsets.size());
        assertEquals(11L, requestedOffsets.get(2));
    }

    @Test
    void closeStopsPollingAndIgnoresLateAnswers() {
        fetcher.start();
        scheduler.tick();
        fetcher.close();
        last().complete(withImage(BROKERS));
        assertEquals(0, fetcher.knownOffset());
        time.advance(INTERVAL_MS * 10);
        assertEquals(1, requestedOffsets.size());
        assertTrue(scheduler.pendingTaskNames().isEmpty());
        fetcher.close();
    }
}
