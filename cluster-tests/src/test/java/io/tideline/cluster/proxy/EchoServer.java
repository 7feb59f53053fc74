package io.tideline.cluster.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A TCP echo server on 127.0.0.1 for the proxy's tests: writes back every byte it reads, one thread each. */
final class EchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();

    EchoServer() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("echo-accept", this::acceptLoop).start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (true) {
            try {
                Socket s = listener.accept();
                accepted.incrementAndGet();
                sockets.add(s);
                daemon("echo-" + s.getPort(), () -> echo(s)).start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void echo(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // The peer reset: this echo ends.
        } finally {
            sockets.remove(s);
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
