package io.tideline.node.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ProducerIdBlock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ProducerIdManagerTest {
    /** The controller's answers, completed by the test. */
    private final ArrayDeque<CompletableFuture<ControllerResponse>> asked = new ArrayDeque<>();
    private final ProducerIdManager manager = new ProducerIdManager(() -> {
        CompletableFuture<ControllerResponse> f = new CompletableFuture<>();
        asked.add(f);
        return f;
    });

    private static ControllerResponse block(long first) {
        return ControllerResponse.newBuilder().setProducerIdBlock(ProducerIdBlock.newBuilder()
                .setFirstProducerId(first).setLength(1000)).build();
    }

    private static long id(CompletableFuture<ProducerIdResult> f) {
        assertTrue(f.isDone(), "answered at once");
        assertEquals(Errors.NONE, f.join().error());
        return f.join().producerId();
    }

    @Test
    void theFirstCallerWaitsForTheFirstBlockWithoutBlockingAndLaterOnesAreAnsweredAtOnce() {
        CompletableFuture<ProducerIdResult> first = manager.generate();
        CompletableFuture<ProducerIdResult> second = manager.generate();
        assertFalse(first.isDone());
        assertEquals(1, asked.size(), "one request to the controller for both callers");
        asked.poll().complete(block(5000));
        assertEquals(5000, id(first));
        assertEquals(5001, id(second));
        assertEquals(5002, id(manager.generate()));
        assertTrue(asked.isEmpty());
    }

    @Test
    void theNextBlockIsAskedForAtNinetyPercentAndTakesOverWithoutAWait() {
        manager.prefetch();
        asked.poll().complete(block(0));
        for (int i = 0; i < 899; i++) {
            assertEquals(i, id(manager.generate()));
        }
        assertTrue(asked.isEmpty(), "89.9% used: no request yet");
        assertEquals(899, id(manager.generate()));
        assertEquals(1, asked.size(), "90% used: the next block is asked for");
        asked.poll().complete(block(3000));
        for (int i = 900; i < 1000; i++) {
            assertEquals(i, id(manager.generate()));
        }
        assertEquals(3000, id(manager.generate()), "the prefetched block follows the used one");
    }

    @Test
    void aRefusedOrFailedBlockAnswersTheWaitersWithTheRetriableCoordinatorLoadInProgress() {
        CompletableFuture<ProducerIdResult> waiting = manager.generate();
        asked.poll().complete(ControllerResponse.newBuilder().setErrorCode(Errors.NOT_CONTROLLER.code()).build());
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, waiting.join().error());
        assertTrue(Errors.COORDINATOR_LOAD_IN_PROGRESS.retriable());
        CompletableFuture<ProducerIdResult> again = manager.generate();
        asked.poll().completeExceptionally(new RuntimeException("quorum down"));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, again.join().error());
        CompletableFuture<ProducerIdResult> third = manager.generate();
        asked.poll().complete(block(0));
        assertEquals(0, id(third), "the next try gets a block");
    }

    @Test
    void waitersAreBoundedAndThoseBeyondTheBoundAreAnsweredAtOnce() {
        List<CompletableFuture<ProducerIdResult>> waiting = new ArrayList<>();
        for (int i = 0; i < ProducerIdManager.MAX_WAITERS; i++) {
            waiting.add(manager.generate());
        }
        CompletableFuture<ProducerIdResult> beyond = manager.generate();
        assertTrue(beyond.isDone());
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, beyond.join().error());
        asked.poll().complete(block(0));
        Set<Long> ids = new HashSet<>();
        waiting.forEach(w -> ids.add(id(w)));
        assertEquals(ProducerIdManager.MAX_WAITERS, ids.size(), "every waiter got its own id");
    }

    @Test
    void aBlockBelowOneAlreadyUsedIsRefusedSoNoIdIsHandedOutTwice() {
        manager.prefetch();
        asked.poll().complete(block(2000));
        for (int i = 0; i < 1000; i++) {
            id(manager.generate());
        }
        asked.poll().complete(block(1000));
        CompletableFuture<ProducerIdResult> waiting = manager.generate();
        assertFalse(waiting.isDone());
        asked.poll().complete(block(2500));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, waiting.join().error(), "a block overlapping a used one");
        CompletableFuture<ProducerIdResult> later = manager.generate();
        asked.poll().complete(block(3000));
        assertEquals(3000, id(later));
    }
}
