package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Kafka listener's queued.max.request.bytes: charges as frames arrive, in order, and the overdraft (B110). */
class KafkaRequestMemoryPoolTest {
    private final KafkaRequestMemoryPool pool = new KafkaRequestMemoryPool(1000);
    private final List<String> admitted = new ArrayList<>();
    private final Object a = "a";
    private final Object b = "b";
    private final Object c = "c";

    /** {@code owner}'s frame is received whole: what it holds now waits for its handler. */
    private void received(Object owner) {
        pool.frameEnded(owner);
    }

    @Test
    void chargesPastThePoolWaitInArrivalOrderUntilHandledRequestsFreeRoom() {
        pool.acquire(a, 600, () -> admitted.add("a"));
        received(a);
        pool.acquire(b, 300, () -> admitted.add("b"));
        received(b);
        pool.acquire(c, 200, () -> admitted.add("c"));
        pool.acquire(a, 1, () -> admitted.add("a2"));
        assertEquals(List.of("a", "b"), admitted, "c does not fit; a2 waits behind it though it would fit");
        assertEquals(900, pool.used());
        assertEquals(2, pool.waitingCount());
        assertEquals(0, pool.overdraftCount(), "the bytes held are handled requests: room will free");

        pool.release(600);
        assertEquals(List.of("a", "b", "c", "a2"), admitted);
        assertEquals(501, pool.used());
        assertEquals(499, pool.available());
        assertEquals(2, pool.heldBackCount());
    }

    @Test
    void aChargeLargerThanThePoolPassesWhenThePoolIsEmpty() {
        pool.acquire(a, 5000, () -> admitted.add("huge"));
        received(a);
        pool.acquire(b, 1, () -> admitted.add("next"));
        assertEquals(List.of("huge"), admitted);
        pool.release(5000);
        assertEquals(List.of("huge", "next"), admitted);
    }

    @Test
    void framesStillArrivingThatFillThePoolLetTheOldestWaiterPastItUntilItsFrameIsWhole() {
        // Two peers each sent half the pool of a frame they have not finished.
        pool.acquire(a, 500, () -> admitted.add("a"));
        pool.acquire(b, 500, () -> admitted.add("b"));
        // Neither can finish without more room, and nothing handled will give any back: c is let past.
        pool.acquire(c, 100, () -> admitted.add("c1"));
        pool.acquire(a, 100, () -> admitted.add("a2"));
        assertEquals(List.of("a", "b", "c1"), admitted);
        assertEquals(1, pool.overdraftCount());
        pool.acquire(c, 400, () -> admitted.add("c2"));
        assertEquals(List.of("a", "b", "c1", "c2"), admitted, "the overdraft holds until c's frame is whole");
        assertEquals(-500, pool.available());
        received(c);
        assertEquals(1, pool.waitingCount(), "c's frame is being handled: its bytes will come back");
        pool.release(500);
        // Room again, but a and b still hold the whole pool half-received: a, the oldest waiter, is let past next.
        assertEquals(List.of("a", "b", "c1", "c2", "a2"), admitted);
        assertEquals(2, pool.overdraftCount());
    }

    @Test
    void aStalledOverdraftIsEndedByItsFrameEndingAndTheNextWaiterTakesIt() {
        pool.acquire(a, 1000, () -> admitted.add("a"));
        pool.acquire(b, 10, () -> admitted.add("b"));
        pool.acquire(c, 10, () -> admitted.add("c"));
        assertEquals(List.of("a", "b"), admitted, "b holds the overdraft; c waits");
        // b's peer stops sending and its connection is closed: c is let past in its turn.
        received(b);
        pool.release(10);
        assertEquals(List.of("a", "b", "c"), admitted);
        assertEquals(2, pool.overdraftCount());
    }

    @Test
    void aFrameEndedWhileItsChargeWaitsNeverProceeds() {
        pool.acquire(a, 1000, () -> admitted.add("a"));
        received(a);
        pool.acquire(b, 10, () -> admitted.add("b"));
        assertEquals(1, pool.waitingCount());
        pool.frameEnded(b);
        assertEquals(0, pool.waitingCount());
        pool.release(1000);
        assertEquals(List.of("a"), admitted);
        assertEquals(0, pool.used());
    }
}
