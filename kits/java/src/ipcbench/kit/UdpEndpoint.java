package ipcbench.kit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * udp.inet as a Java program uses it: a connected DatagramChannel, read and write, non-blocking
 * with a Selector only when a read finds nothing (the deadlines of an unreliable case). The
 * creator binds; the connector sends the 13-byte hello "ipcb-udp-helo" every 50 ms until the
 * creator, which then talks only to it, answers "ipcb-udp-ack!". Duplex, unreliable.
 */
final class UdpEndpoint extends Endpoint {
    static final byte[] HELLO = "ipcb-udp-helo".getBytes(StandardCharsets.US_ASCII);
    static final byte[] BOUND_HELLO = "ipcb-udp-bind".getBytes(StandardCharsets.US_ASCII);  // + the key (1.1)
    static final byte[] ACK = "ipcb-udp-ack!".getBytes(StandardCharsets.US_ASCII);
    static final int UDP_MAX_IPV4 = 65507;

    private final boolean creator;
    private final DatagramChannel socket;
    private final Selector readable;
    private final Selector writable;
    private final InetSocketAddress peer;
    private final byte[] hello;

    UdpEndpoint(Transports.Spec spec) throws IOException, KitException {
        Transports.checkOptions(spec, Set.of("sndbuf", "rcvbuf", "bind"), Map.of());
        if (spec.maxMessage > UDP_MAX_IPV4)
            throw new KitException(KitException.E_TOO_BIG, "udp.inet: a datagram of " + spec.maxMessage
                    + " B is over the " + UDP_MAX_IPV4 + " B an IPv4 UDP datagram can carry");
        creator = spec.creator();
        if (spec.bindingKey.length > 0) {
            hello = new byte[BOUND_HELLO.length + spec.bindingKey.length];
            System.arraycopy(BOUND_HELLO, 0, hello, 0, BOUND_HELLO.length);
            System.arraycopy(spec.bindingKey, 0, hello, BOUND_HELLO.length, spec.bindingKey.length);
        } else {
            hello = HELLO;
        }
        String where = spec.options.getOrDefault("bind", "");
        if (where.isEmpty()) where = spec.address.isEmpty() ? "127.0.0.1:0" : spec.address;
        InetSocketAddress local = Transports.parseInet(creator ? where : spec.address, "udp.inet address");
        boolean v6 = local.getAddress() instanceof java.net.Inet6Address;
        socket = DatagramChannel.open(v6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        if (spec.options.containsKey("sndbuf") && !spec.options.get("sndbuf").isEmpty())
            socket.setOption(StandardSocketOptions.SO_SNDBUF, Transports.parseBytes("sndbuf", spec.options.get("sndbuf")));
        if (spec.options.containsKey("rcvbuf") && !spec.options.get("rcvbuf").isEmpty())
            socket.setOption(StandardSocketOptions.SO_RCVBUF, Transports.parseBytes("rcvbuf", spec.options.get("rcvbuf")));
        if (creator) {
            socket.bind(local);
            peer = null;
        } else {
            peer = local;
        }
        socket.configureBlocking(false);
        readable = Selector.open();
        writable = Selector.open();
        socket.register(readable, SelectionKey.OP_READ);
        socket.register(writable, SelectionKey.OP_WRITE);
    }

    @Override
    public boolean stream() {
        return false;
    }

    @Override
    public boolean reliable() {
        return false;
    }

    @Override
    public String sendCall() {
        return "DatagramChannel.write";
    }

    @Override
    public String recvCall() {
        return "DatagramChannel.read";
    }

    @Override
    public String export() throws IOException {
        return Transports.formatInet((InetSocketAddress) socket.getLocalAddress());
    }

    private boolean waitReadable(long deadline) throws IOException {
        long left = Transports.leftOf(deadline);
        if (left == 0) return false;
        readable.select(left < 0 ? 0 : Math.max(1, left / 1_000_000));
        readable.selectedKeys().clear();
        return true;
    }

    private static boolean is(ByteBuffer b, int n, byte[] word) {
        return n == word.length && b.duplicate().flip().equals(ByteBuffer.wrap(word));
    }

    @Override
    public void connect(long timeoutNs) throws IOException, TimedOut {
        long deadline = Transports.deadlineOf(timeoutNs);
        ByteBuffer in = ByteBuffer.allocate(64);
        if (creator) {
            while (true) {
                in.clear();
                SocketAddress from = socket.receive(in);
                if (from != null && is(in, in.position(), HELLO)) {
                    socket.connect(from);
                    socket.write(ByteBuffer.wrap(ACK));
                    return;
                }
                if (from == null && !waitReadable(deadline)) throw new TimedOut("udp.inet: no hello from the peer");
            }
        }
        socket.connect(peer);
        while (true) {
            try {
                socket.write(ByteBuffer.wrap(hello));
            } catch (PortUnreachableException ignored) {
                // nobody bound yet: try again
            }
            long step = Math.min(deadline, System.nanoTime() + 50_000_000L);
            while (true) {
                in.clear();
                int n;
                try {
                    n = socket.read(in);
                } catch (PortUnreachableException e) {
                    n = 0;
                }
                if (n > 0 && is(in, n, ACK)) return;
                if (n <= 0 && !waitReadable(step)) break;
            }
            if (Transports.leftOf(deadline) == 0) throw new TimedOut("udp.inet: the peer did not answer the hello");
        }
    }

    @Override
    public void send(ByteBuffer buf) throws IOException, KitException {
        try {
            while (socket.write(buf) == 0) {
                writable.select(100);
                writable.selectedKeys().clear();
            }
        } catch (PortUnreachableException e) {
            throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
        }
    }

    /** One datagram of data; handshake datagrams are answered or skipped. */
    @Override
    public int recv(ByteBuffer buf, long timeoutNs) throws IOException, KitException, TimedOut {
        long deadline = Long.MIN_VALUE;
        int start = buf.position();
        while (true) {
            int n;
            try {
                n = socket.read(buf);
            } catch (PortUnreachableException e) {
                throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
            }
            if (n > 0) {
                if (n == HELLO.length) {
                    ByteBuffer got = buf.duplicate().limit(start + n).position(start);
                    if (got.equals(ByteBuffer.wrap(HELLO))) {
                        socket.write(ByteBuffer.wrap(ACK));
                        buf.position(start);
                        continue;
                    }
                    if (got.equals(ByteBuffer.wrap(ACK))) {
                        buf.position(start);
                        continue;
                    }
                }
                return n;
            }
            if (deadline == Long.MIN_VALUE) deadline = Transports.deadlineOf(timeoutNs);
            if (!waitReadable(deadline)) throw new TimedOut("recv");
        }
    }

    @Override
    public Map<String, String> settings() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("sndbuf", Integer.toString(socket.getOption(StandardSocketOptions.SO_SNDBUF)));
        out.put("rcvbuf", Integer.toString(socket.getOption(StandardSocketOptions.SO_RCVBUF)));
        return out;
    }

    @Override
    public void close() {
        try {
            readable.close();
            writable.close();
            socket.close();
        } catch (IOException ignored) {
            // closed already
        }
    }
}
