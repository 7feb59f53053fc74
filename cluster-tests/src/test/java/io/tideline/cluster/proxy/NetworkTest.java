package io.tideline.cluster.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NetworkTest {
    private EchoServer echo;
    private final Network network = new Network();

    @BeforeEach
    void start() throws IOException {
        echo = new EchoServer();
        network.add("1->2 raft", echo.address());
        network.add("2->1 raft", echo.address());
        network.add("client->2", echo.address());
    }

    @AfterEach
    void stop() throws IOException {
        network.close();
        echo.close();
    }

    private boolean passes(String link) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), network.link(link).port())) {
            s.setSoTimeout(300);
            s.getOutputStream().write("x".getBytes(StandardCharsets.UTF_8));
            return s.getInputStream().read() == 'x';
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Test
    void cutsAndHealsASetOfLinksLeavingTheOthersAlone() throws IOException {
        network.cut("1->2 raft", "2->1 raft");
        assertEquals(false, passes("1->2 raft"));
        assertEquals(false, passes("2->1 raft"));
        assertEquals(true, passes("client->2"));
        network.healAll();
        assertEquals(true, passes("1->2 raft"));
        assertEquals(true, passes("2->1 raft"));
    }

    @Test
    void anUnknownLinkNameCutsNothing() throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> network.cut("1->2 raft", "1->3 raft"));
        assertTrue(e.getMessage().contains("1->3 raft"), e.getMessage());
        assertEquals(true, passes("1->2 raft"));
        assertThrows(IllegalArgumentException.class, () -> network.add("client->2", echo.address()));
        assertEquals(Set.of("1->2 raft", "2->1 raft", "client->2"), network.links());
    }
}
