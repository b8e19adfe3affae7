package ipcbench.kit;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * socket.tcp and socket.unix as a Java program uses them: SocketChannel in blocking mode
 * (UnixDomainSocketAddress for the Unix socket, JDK 16 on). The creator listens at open and
 * accepts one connection at connect (a Unix socket file is unlinked once accepted); the
 * connector connects, retrying until the deadline. Duplex: one endpoint serves both directions.
 */
final class SocketEndpoint extends Endpoint {
    private final String id;
    private final boolean tcp;
    private final boolean creator;
    private final Map<String, Integer> buffers = new LinkedHashMap<>();
    private final boolean nodelay;
    private ServerSocketChannel listener;
    private SocketChannel socket;
    private SocketAddress peer;
    private final byte[] bindingKey;
    static final byte[] BINDING_MAGIC = "ipcbench-bind/1\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private Transports.PrivateFolder folder;
    private Path path;

    SocketEndpoint(Transports.Spec spec) throws IOException, KitException {
        bindingKey = spec.bindingKey;
        id = spec.transport;
        tcp = "socket.tcp".equals(id);
        creator = spec.creator();
        Transports.checkOptions(spec, tcp ? Set.of("sndbuf", "rcvbuf", "nodelay", "bind") : Set.of("sndbuf", "rcvbuf"),
                tcp ? Map.of("zerocopy", "0") : Map.of());
        for (String key : new String[] {"sndbuf", "rcvbuf"}) {
            String v = spec.options.getOrDefault(key, "");
            if (!v.isEmpty()) buffers.put(key, Transports.parseBytes(key, v));
        }
        nodelay = !"0".equals(spec.options.getOrDefault("nodelay", "1"));
        if (creator) {
            listen(spec);
        } else if (tcp) {
            peer = Transports.parseInet(spec.address, "socket.tcp address");
        } else {
            if (!spec.address.startsWith("/"))
                throw new KitException(KitException.E_BAD_ADDRESS, "socket.unix address '"
                        + spec.address + "' is not a path");
            peer = UnixDomainSocketAddress.of(spec.address);
        }
    }

    private void listen(Transports.Spec spec) throws IOException, KitException {
        if (tcp) {
            String where = spec.options.getOrDefault("bind", "");
            if (where.isEmpty()) where = spec.address.isEmpty() ? "127.0.0.1:0" : spec.address;
            SocketAddress local = Transports.parseInet(where, "option bind");
            listener = ServerSocketChannel.open();
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            tuneListener();
            listener.bind(local, 4);
        } else {
            folder = new Transports.PrivateFolder(spec.runtimeDir);
            path = folder.name("s");
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            tuneListener();
            listener.bind(UnixDomainSocketAddress.of(path), 4);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        }
    }

    private void tuneListener() throws IOException {
        if (buffers.containsKey("rcvbuf")) listener.setOption(StandardSocketOptions.SO_RCVBUF, buffers.get("rcvbuf"));
    }

    private void tune(SocketChannel s) throws IOException {
        if (buffers.containsKey("sndbuf")) s.setOption(StandardSocketOptions.SO_SNDBUF, buffers.get("sndbuf"));
        if (buffers.containsKey("rcvbuf")) s.setOption(StandardSocketOptions.SO_RCVBUF, buffers.get("rcvbuf"));
    }

    @Override
    public String sendCall() {
        return "SocketChannel.write";
    }

    @Override
    public String recvCall() {
        return "SocketChannel.read";
    }

    @Override
    public String export() throws IOException {
        if (tcp) return Transports.formatInet((java.net.InetSocketAddress) listener.getLocalAddress());
        return path.toString();
    }

    @Override
    public void connect(long timeoutNs) throws IOException, TimedOut {
        long deadline = Transports.deadlineOf(timeoutNs);
        if (creator) {
            listener.configureBlocking(false);
            try (Selector ready = Selector.open()) {
                listener.register(ready, SelectionKey.OP_ACCEPT);
                while ((socket = listener.accept()) == null) {
                    long left = Transports.leftOf(deadline);
                    if (left == 0) throw new TimedOut(id + ": no peer connected in time");
                    ready.select(left < 0 ? 0 : Math.max(1, left / 1_000_000));
                    ready.selectedKeys().clear();
                }
            }
            listener.close();
            listener = null;
            unlink();
        } else {
            connectPeer(deadline);
        }
        socket.configureBlocking(true);
        if (!creator && bindingKey.length > 0) {  // protocol 1.1: the key, before any data
            ByteBuffer hello = ByteBuffer.allocate(BINDING_MAGIC.length + bindingKey.length);
            hello.put(BINDING_MAGIC).put(bindingKey).flip();
            while (hello.hasRemaining()) socket.write(hello);
        }
        tune(socket);
        if (tcp) socket.setOption(StandardSocketOptions.TCP_NODELAY, nodelay);
    }

    private void connectPeer(long deadline) throws IOException, TimedOut {
        while (true) {
            SocketChannel s = tcp ? SocketChannel.open() : SocketChannel.open(StandardProtocolFamily.UNIX);
            tune(s);
            try {
                s.connect(peer);
                socket = s;
                return;
            } catch (ConnectException | NoSuchFileException e) {
                s.close();
            } catch (IOException e) {
                s.close();
                // A Unix socket whose file is not there yet says so in other words.
                if (tcp || !String.valueOf(e.getMessage()).contains("No such file")) throw e;
            }
            if (Transports.leftOf(deadline) == 0) throw new TimedOut(id + ": connect timed out (refused)");
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                throw new IOException("interrupted", e);
            }
        }
    }

    @Override
    public void send(ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) socket.write(buf);
    }

    @Override
    public int recv(ByteBuffer buf, long timeoutNs) throws IOException {
        try {
            return socket.read(buf);
        } catch (IOException e) {
            if (String.valueOf(e.getMessage()).contains("reset")) return -1;
            throw e;
        }
    }

    @Override
    public SocketChannel channel() {
        return socket;
    }

    /** TCP: the java.net.Socket's own streams; a Unix socket has no Socket: Channels' streams. */
    @Override
    public java.io.InputStream inputStream() throws IOException {
        return tcp ? socket.socket().getInputStream() : java.nio.channels.Channels.newInputStream(socket);
    }

    @Override
    public java.io.OutputStream outputStream() throws IOException {
        return tcp ? socket.socket().getOutputStream() : java.nio.channels.Channels.newOutputStream(socket);
    }

    @Override
    public Map<String, String> settings() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        java.nio.channels.NetworkChannel s = socket != null ? socket : listener;
        out.put("sndbuf", Integer.toString(socket != null ? socket.getOption(StandardSocketOptions.SO_SNDBUF) : 0));
        out.put("rcvbuf", Integer.toString(s.getOption(StandardSocketOptions.SO_RCVBUF)));
        if (tcp) {
            out.put("nodelay", socket != null && socket.getOption(StandardSocketOptions.TCP_NODELAY) ? "1" : "0");
            out.put("zerocopy", "0");
        }
        return out;
    }

    private void unlink() {
        if (path != null) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // ipchost removes the run folder after the case
            }
            path = null;
        }
        if (folder != null) {
            folder.remove();
            folder = null;
        }
    }

    @Override
    public void close() {
        try {
            if (socket != null) socket.close();
            if (listener != null) listener.close();
        } catch (IOException ignored) {
            // a socket that does not close was closed
        }
        socket = null;
        listener = null;
        unlink();
    }
}
