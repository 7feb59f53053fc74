package io.tideline.node.producer;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ProducerIdBlock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's producer ids: blocks taken from the controller (AllocateProducerIds), handed out one by one to
 * InitProducerId. When 90% of the current block is used the next one is asked for, so under steady use an
 * id is answered at once; only a broker that has no block yet (just started, or the controller was
 * unreachable) makes a caller wait for the controller's answer. Callers never block: {@link #generate()}
 * returns a future. At most {@link #MAX_WAITERS} callers wait for a block; past that, and when the
 * controller refuses or does not answer, the answer is COORDINATOR_LOAD_IN_PROGRESS, the retriable error
 * Kafka's brokers give while no block is available, so Kafka's producer (and ours) retries.
 *
 * <p>An id comes from one block only and blocks only move forward (a block at or below one already used
 * is refused), so an id is handed out once per cluster.
 *
 * <p>Thread-safe: one monitor guards the blocks and the waiters; futures complete outside it.
 */
public final class ProducerIdManager {
    private static final Logger log = LoggerFactory.getLogger(ProducerIdManager.class);

    /** Callers that may wait for a block: a block's worth, all served by the first block that comes. */
    public static final int MAX_WAITERS = 1000;
    static final int PREFETCH_PERCENT = 90;

    private final Supplier<CompletableFuture<ControllerResponse>> allocator;

    private long blockFirst = -1;
    private long next;
    private long end;
    /** The next block, asked for at 90% of the current one; null while none is waiting. */
    private ProducerIdBlock prefetched;
    /** The highest id end seen: a block must start at or past it. */
    private long highestEnd;
    private boolean fetching;
    private final ArrayDeque<CompletableFuture<ProducerIdResult>> waiters = new ArrayDeque<>();

    /** @param allocator submits AllocateProducerIds for this broker (its current epoch) to the controller */
    public ProducerIdManager(Supplier<CompletableFuture<ControllerResponse>> allocator) {
        this.allocator = allocator;
    }

    /** Asks for the first block ahead of the first InitProducerId (at startup); a no-op once one is held. */
    public void prefetch() {
        boolean fetch;
        synchronized (this) {
            fetch = !fetching && next >= end && prefetched == null;
            fetching |= fetch;
        }
        if (fetch) {
            fetch();
        }
    }

    /** A new producer id: at once from the current block, else when the next block arrives. */
    public CompletableFuture<ProducerIdResult> generate() {
        CompletableFuture<ProducerIdResult> answer;
        boolean fetch = false;
        synchronized (this) {
            if (next >= end && prefetched != null) {
                use(prefetched);
                prefetched = null;
            }
            if (next < end) {
                answer = CompletableFuture.completedFuture(ProducerIdResult.of(next++));
                fetch = !fetching && prefetched == null && (next - blockFirst) * 100 >= (end - blockFirst) * PREFETCH_PERCENT;
            } else if (waiters.size() >= MAX_WAITERS) {
                answer = CompletableFuture.completedFuture(ProducerIdResult.error(Errors.COORDINATOR_LOAD_IN_PROGRESS));
            } else {
                answer = new CompletableFuture<>();
                waiters.add(answer);
                fetch = !fetching;
            }
            fetching |= fetch;
        }
        if (fetch) {
            fetch();
        }
        return answer;
    }

    private void fetch() {
        CompletableFuture<ControllerResponse> f;
        try {
            f = allocator.get();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete(this::onBlock);
    }

    private void onBlock(ControllerResponse response, Throwable failure) {
        List<CompletableFuture<ProducerIdResult>> failed = new ArrayList<>();
        List<Runnable> completions = new ArrayList<>();
        boolean again = false;
        synchronized (this) {
            fetching = false;
            ProducerIdBlock block = failure == null && response.getErrorCode() == Errors.NONE.code()
                    && response.hasProducerIdBlock() ? response.getProducerIdBlock() : null;
            if (block != null && (block.getLength() <= 0 || block.getFirstProducerId() < highestEnd)) {
                log.error("Refusing producer id block {}+{}: ids below {} were handed out already",
                        block.getFirstProducerId(), block.getLength(), highestEnd);
                failed.addAll(waiters);
                waiters.clear();
            } else if (block == null) {
                log.warn("No producer id block from the controller: {}", failure != null ? failure.toString()
                        : Errors.forCode(response.getErrorCode()) + " " + response.getErrorMessage());
                failed.addAll(waiters);
                waiters.clear();
            } else {
                highestEnd = block.getFirstProducerId() + block.getLength();
                if (next >= end) {
                    use(block);
                } else {
                    prefetched = block;
                }
                while (!waiters.isEmpty() && next < end) {
                    CompletableFuture<ProducerIdResult> w = waiters.poll();
                    long id = next++;
                    completions.add(() -> w.complete(ProducerIdResult.of(id)));
                }
                again = !waiters.isEmpty();
                fetching = again;
            }
        }
        failed.forEach(w -> w.complete(ProducerIdResult.error(Errors.COORDINATOR_LOAD_IN_PROGRESS)));
        completions.forEach(Runnable::run);
        if (again) {
            fetch();
        }
    }

    private void use(ProducerIdBlock block) {
        blockFirst = block.getFirstProducerId();
        next = blockFirst;
        end = blockFirst + block.getLength();
    }
}
