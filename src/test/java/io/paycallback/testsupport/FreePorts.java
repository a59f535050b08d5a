package io.paycallback.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers tests start themselves (proxies, databases, service instances). With {@code -Dtest.port-base=N}
 * they are taken upwards from N, for machines where each suite has its own range; otherwise the system picks them.
 */
public final class FreePorts {

    private static final AtomicInteger NEXT = new AtomicInteger(Integer.getInteger("test.port-base", 0));

    private FreePorts() {
    }

    public static int next() {
        if (NEXT.get() == 0) {
            return bind(0);
        }
        for (int i = 0; i < 200; i++) {
            int port = NEXT.getAndIncrement();
            try {
                return bind(port);
            } catch (UncheckedIOException taken) {
                // In use: try the next one.
            }
        }
        throw new IllegalStateException("no free port from " + Integer.getInteger("test.port-base"));
    }

    private static int bind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
