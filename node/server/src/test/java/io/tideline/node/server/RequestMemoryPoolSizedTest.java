package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Kafka listener's side of queued.max.request.bytes: requests whose size is known before they are read. */
class RequestMemoryPoolSizedTest {
    private final RequestMemoryPool pool = new RequestMemoryPool(1000);
    private final List<String> admitted = new ArrayList<>();

    @Test
    void requestsPastThePoolWaitInArrivalOrderUntilRoomFrees() {
        pool.acquire(600, () -> admitted.add("a"));
        pool.acquire(600, () -> admitted.add("b"));
        pool.acquire(100, () -> admitted.add("c"));
        // b is let through while there is room, and passes the bound by its size; then c waits.
        assertEquals(List.of("a", "b"), admitted);
        assertEquals(1200, pool.used());
        assertEquals(1, pool.waitingCount());
        pool.acquire(1, () -> admitted.add("d"));
        assertEquals(2, pool.waitingCount());

        pool.release(600);
        // Room again: the waiting ones in arrival order, each charged its own size.
        assertEquals(List.of("a", "b", "c", "d"), admitted);
        assertEquals(701, pool.used());
        pool.release(600);
        pool.release(100);
        pool.release(1);
        assertEquals(0, pool.used());
        assertEquals(1000, pool.available());
    }

    @Test
    void aRequestLargerThanThePoolPassesWhenThePoolIsEmpty() {
        pool.acquire(5000, () -> admitted.add("huge"));
        assertEquals(List.of("huge"), admitted);
        pool.acquire(1, () -> admitted.add("next"));
        assertEquals(List.of("huge"), admitted);
        pool.release(5000);
        assertEquals(List.of("huge", "next"), admitted);
    }
}
