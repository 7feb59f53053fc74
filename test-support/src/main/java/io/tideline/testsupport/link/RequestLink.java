package io.tideline.testsupport.link;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A directed link of an in-process test cluster whose requests are futures (an in-process gRPC call, a
 * replica fetch), with a partition's semantics ({@link LinkControl}):
 * <ul>
 *   <li>while cut, a request is not sent at all: {@link #send} returns a future failed with
 *       {@link LinkCutException} (counted in {@link #refused()});
 *   <li>{@link #cut()} fails every request in flight with {@link LinkCutException} (counted in
 *       {@link #lostInFlight()}), and the answer the other side produces later is discarded: a fetch parked at
 *       the leader when the link was cut never delivers its records, as it would not across a partition. What
 *       the request did at the other side before the cut stays done, as with a request that arrived;
 *   <li>{@link #heal()} lets the next request through.
 * </ul>
 * The loss is reported at once rather than at the caller's deadline, so the link works on a mock clock (which
 * would never reach a deadline) and a test does not wait for one; to the caller both are a failed request.
 * Thread-safe.
 */
public final class RequestLink implements LinkControl {
    private final String name;
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong lostInFlight = new AtomicLong();
    private volatile boolean cut;

    public RequestLink(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** Sends {@code request} (calls it) unless the link is cut; its answer arrives unless a cut comes first. */
    public <T> CompletableFuture<T> send(Supplier<? extends CompletionStage<T>> request) {
        if (cut) {
            refused.incrementAndGet();
            return CompletableFuture.failedFuture(new LinkCutException("link " + name + " is cut"));
        }
        sent.incrementAndGet();
        CompletableFuture<T> answer = new CompletableFuture<>();
        inFlight.add(answer);
        CompletionStage<T> call;
        try {
            call = request.get();
        } catch (RuntimeException e) {
            inFlight.remove(answer);
            answer.completeExceptionally(e);
            return answer;
        }
        call.whenComplete((value, error) -> {
            inFlight.remove(answer);
            if (error != null) {
                answer.completeExceptionally(error);
            } else {
                answer.complete(value);
            }
        });
        // In the in-flight set before this check: a cut racing with this send either fails it or is seen here.
        if (cut) {
            lose(answer);
        }
        return answer;
    }

    @Override
    public void cut() {
        cut = true;
        for (CompletableFuture<?> pending : inFlight) {
            lose(pending);
        }
    }

    private void lose(CompletableFuture<?> pending) {
        if (pending.completeExceptionally(new LinkCutException("link " + name + " was cut with this request in flight"))) {
            lostInFlight.incrementAndGet();
        }
        inFlight.remove(pending);
    }

    @Override
    public void heal() {
        cut = false;
    }

    public boolean isCut() {
        return cut;
    }

    /** Requests sent over the link so far (not refused). */
    public long sent() {
        return sent.get();
    }

    /** Requests the cut link did not send. A refusal seen after a cut means the sender has tried again. */
    public long refused() {
        return refused.get();
    }

    /** Requests in flight when the link was cut, whose answers were lost. */
    public long lostInFlight() {
        return lostInFlight.get();
    }

    /** Requests sent and not answered yet. */
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public String toString() {
        return "link " + name + (cut ? " cut" : " open") + " sent=" + sent + " refused=" + refused
                + " lost-in-flight=" + lostInFlight + " in-flight=" + inFlight.size();
    }
}
