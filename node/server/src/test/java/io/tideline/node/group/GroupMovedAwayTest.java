package io.tideline.node.group;

import static org.apache.kafka.common.protocol.Errors.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that lost a group to another broker, while nothing asks it about the group any more, must not act
 * on the group from its timers: its members heartbeat to the new coordinator, so the old one's session timers
 * see no heartbeats.
 */
class GroupMovedAwayTest extends GroupTestSupport {

    /** A group id that broker 1 coordinates alone and broker 2 takes over once both are live. */
    private static String movingGroup() {
        for (int i = 0; ; i++) {
            String id = "g" + i;
            if (Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % 2 == 1) {
                return id;
            }
        }
    }

    @Test
    void theOldCoordinatorsSessionTimersDoNotExpireMembersOfAGroupThatMovedAway() {
        String g = movingGroup();
        quorum.brokers(1);
        GroupCoordinator c1 = coordinator(1, Map.of());
        GroupCoordinator c2 = coordinator(2, Map.of());
        CompletableFuture<JoinGroupResponseData> f = joinNew(c1, g, "a");
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = f.join();
        assertEquals(error(NONE), c1.syncGroup(sync(g, a, Map.of(a.memberId(), new byte[] {5}))).join().errorCode());
        assertEquals(1, quorum.image().group(g).orElseThrow().generation());

        quorum.brokers(2);
        assertEquals(error(NONE), c2.heartbeat(heartbeat(g, a)).errorCode(), "broker 2 took the group over");
        for (int i = 0; i < 4; i++) {
            time.advance(SESSION_MS / 2);
            assertEquals(error(NONE), c2.heartbeat(heartbeat(g, a)).errorCode(),
                    "the member stays in its group at the new coordinator");
        }
        assertEquals(1, quorum.image().group(g).orElseThrow().generation(),
                "the old coordinator stored nothing for the group it lost");
        assertTrue(quorum.image().group(g).orElseThrow().hasMembers());
    }
}
