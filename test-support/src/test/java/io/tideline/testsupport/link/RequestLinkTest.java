package io.tideline.testsupport.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RequestLinkTest {
    private final RequestLinks links = new RequestLinks();
    private final RequestLink link = links.link(3, 1);

    @Test
    void anOpenLinkPassesRequestsAndAnswers() throws Exception {
        CompletableFuture<String> remote = new CompletableFuture<>();
        CompletableFuture<String> answer = link.send(() -> remote);
        assertEquals(1, link.inFlight());
        remote.complete("records");
        assertEquals("records", answer.get());
        assertEquals(0, link.inFlight());
        assertEquals(1, link.sent());
        assertEquals("3->1", link.name());
        assertSame(link, links.link(3, 1));
    }

    @Test
    void aCutLinkDoesNotSendAndFailsAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        link.cut();
        CompletableFuture<String> answer = link.send(() -> {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("never");
        });
        assertEquals(0, calls.get(), "nothing crosses a cut link");
        assertCutFailure(answer);
        assertEquals(1, link.refused());
        assertEquals(0, link.sent());
    }

    @Test
    void aRequestInFlightWhenTheLinkIsCutIsLostAndItsLateAnswerDiscarded() {
        CompletableFuture<String> parkedAtLeader = new CompletableFuture<>();
        CompletableFuture<String> answer = link.send(() -> parkedAtLeader);
        link.cut();
        assertCutFailure(answer);
        assertEquals(1, link.lostInFlight());
        assertEquals(0, link.inFlight());
        // The leader answers after the cut (news woke the parked fetch): the follower never sees it.
        parkedAtLeader.complete("records appended after the cut");
        assertCutFailure(answer);
    }

    @Test
    void healingLetsTheNextRequestThroughButNotALostOne() throws Exception {
        CompletableFuture<String> lost = link.send(CompletableFuture::new);
        links.link(2, 1).cut();
        link.cut();
        links.healAll();
        assertFalse(link.isCut());
        assertFalse(links.link(2, 1).isCut());
        assertEquals("ok", link.send(() -> CompletableFuture.completedFuture("ok")).get());
        assertCutFailure(lost);
    }

    @Test
    void anErrorOfTheRequestItselfIsPassedOn() {
        CompletableFuture<String> answer = link.send(() -> CompletableFuture.failedFuture(new IllegalStateException("leader gone")));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, answer::get);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, link.lostInFlight());
    }

    private static void assertCutFailure(CompletableFuture<?> answer) {
        assertTrue(answer.isCompletedExceptionally());
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, answer::get);
        assertInstanceOf(LinkCutException.class, e.getCause());
    }
}
