package io.paycallback.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay between the service and its database that can fail the way networks and servers do: {@link #cut()}
 * resets every open connection and closes the listening port, so new connections are refused until {@link #restore()};
 * {@link #hangUp()} closes them the orderly way instead, as a restarting database does; {@link #blackhole()} keeps
 * every connection open but lets no byte through either way, as a peer that vanished without a reset. Nothing is
 * buffered or delayed: while it is up, it is a wire.
 */
public final class TcpProxy implements AutoCloseable {

    private final int port;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    private volatile long accepted;
    private volatile boolean swallowing;

    public TcpProxy(int port, String targetHost, int targetPort) {
        this.port = port;
        this.target = new InetSocketAddress(targetHost, targetPort);
        restore();
    }

    public int port() {
        return port;
    }

    /** Connections accepted since the start: a test that cuts must know the service really went through the proxy. */
    public long accepted() {
        return accepted;
    }

    /** Ends a cut, a hang-up or a blackhole: bytes flow again and new connections are accepted. */
    public synchronized void restore() {
        swallowing = false;
        if (listener != null) {
            return;
        }
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            listener = socket;
            Thread acceptor = new Thread(() -> accept(socket), "tcp-proxy-accept-" + port);
            acceptor.setDaemon(true);
            acceptor.start();
        } catch (IOException e) {
            throw new UncheckedIOException("proxy cannot listen on " + port, e);
        }
    }

    /**
     * Every open connection is reset (RST, not FIN: the peer sees a network failure) and new ones are refused. Every
     * socket is set to reset before any is closed: closing one end wakes its pump, which closes the other end, and
     * that end would otherwise say FIN.
     */
    public synchronized void cut() {
        ServerSocket socket = listener;
        listener = null;
        closeQuietly(socket);
        for (Socket connection : open) {
            try {
                connection.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // Already closed by its pump: nothing left to reset.
            }
        }
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /** Every open connection is closed with a FIN, not a reset, and new ones are refused. */
    public synchronized void hangUp() {
        ServerSocket socket = listener;
        listener = null;
        closeQuietly(socket);
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /**
     * From now on every byte is read and dropped, both ways: connections stay open and new ones are accepted, but no
     * request reaches the database and no answer comes back.
     */
    public void blackhole() {
        swallowing = true;
    }

    @Override
    public void close() {
        cut();
    }

    private void accept(ServerSocket socket) {
        while (!socket.isClosed()) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException e) {
                return;
            }
            accepted++;
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            if (listener != socket) {
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            open.add(client);
            open.add(upstream);
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (!swallowing) {
                        out.write(buffer, 0, read);
                    }
                }
            } catch (IOException ignored) {
                // The other side or a cut closed the connection; closing both ends below is all there is to do.
            } finally {
                open.remove(from);
                open.remove(to);
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-pump-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Closing is best effort: a socket that fails to close is already unusable.
        }
    }
}
