package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuorumIdsTest {

    @Test
    void hostPortOfAConfiguredVoterIsHostColonPortNotTheUnresolvedToString() {
        InetSocketAddress voter = InetSocketAddress.createUnresolved("127.0.0.1", 9193);
        assertEquals("127.0.0.1:9193", QuorumIds.hostPort(voter));
        assertEquals("broker-1.internal:9193", QuorumIds.hostPort(InetSocketAddress.createUnresolved("broker-1.internal", 9193)));
    }

    @Test
    void hostPortBracketsAnIpv6Literal() {
        assertEquals("[::1]:9193", QuorumIds.hostPort(InetSocketAddress.createUnresolved("::1", 9193)));
    }

    @Test
    void theGroupsPeersHaveTheSameAddresses() {
        var group = QuorumIds.group("c", Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", 9193),
                2, InetSocketAddress.createUnresolved("::1", 9194)));
        assertEquals("127.0.0.1:9193", group.getPeer(QuorumIds.peerId(1)).getAddress());
        assertEquals("[::1]:9194", group.getPeer(QuorumIds.peerId(2)).getAddress());
    }
}
