package ipcbench.kit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The streams API (--api streams, `--impl java:streams`): a byte-stream transport through
 * java.io as the JDK's tutorial on data streams shows it, around the transport's own streams
 * (FileInputStream / FileOutputStream on a FIFO, Socket.getInputStream / getOutputStream on
 * TCP, Channels.newInputStream / newOutputStream on a Unix socket, which has no Socket):
 * <ul>
 *   <li>receive: new DataInputStream(new BufferedInputStream(in)) and readFully of one message
 *       (its 8 KiB buffer: one read(2) takes as many small messages as are waiting);</li>
 *   <li>send: new DataOutputStream(new BufferedOutputStream(out)), write of one message and
 *       flush, as a program flushes each message it means the peer to have (a request, a
 *       record): one write(2) a message, as the kit's other writers.</li>
 * </ul>
 * Heap byte arrays both ways: the loops hand it array-backed buffers ({@link #arrays}).
 */
final class StreamsEndpoint extends Endpoint {
    private final Endpoint inner;
    private DataInputStream in;
    private DataOutputStream out;
    private final Object writing = new Object(); // --bidir: one endpoint, two loops

    private static volatile boolean used;
    private static final java.util.concurrent.atomic.AtomicLong READS = new java.util.concurrent.atomic.AtomicLong();

    /** The transport's reads under the buffered stream: what the kit figure underlying_reads counts. */
    private static final class Counted extends java.io.FilterInputStream {
        Counted(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            READS.incrementAndGet();
            return in.read(b, off, len);
        }
    }

    static boolean inUse() {
        return used;
    }

    /** Reads that reached the transport since the worker started. */
    static long underlyingReads() {
        return READS.get();
    }

    StreamsEndpoint(Endpoint inner) {
        this.inner = inner;
    }

    /** Registers the streams form of each byte-stream transport; the others are not offered. */
    static void use() {
        used = true;
        for (String id : new String[] {"pipe.fifo", "socket.unix", "socket.tcp"}) {
            Transports.Factory builtin = Transports.factory(id);
            Transports.register(id, spec -> new StreamsEndpoint(builtin.open(spec)));
        }
        for (String id : new String[] {"udp.inet", "mq.sysv", "mq.posix"})
            Transports.unregister(id); // a datagram is one read already: no stream to buffer
    }

    @Override
    public String sendCall() {
        return "DataOutputStream.write+flush";
    }

    @Override
    public String recvCall() {
        return "DataInputStream.readFully";
    }

    @Override
    public String export() throws IOException {
        return inner.export();
    }

    @Override
    public void connect(long timeoutNs) throws IOException, KitException, TimedOut {
        inner.connect(timeoutNs);
        InputStream i = inner.inputStream();
        OutputStream o = inner.outputStream();
        if (i != null) in = new DataInputStream(new BufferedInputStream(new Counted(i)));
        if (o != null) out = new DataOutputStream(new BufferedOutputStream(o));
    }

    @Override
    public void send(ByteBuffer buf) throws IOException, KitException {
        if (!buf.hasArray()) { // not from the loops (they hand arrays): copied, as a program would
            byte[] copy = new byte[buf.remaining()];
            buf.get(copy);
            buf = ByteBuffer.wrap(copy);
        }
        synchronized (writing) {
            out.write(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
            out.flush();
        }
        buf.position(buf.limit());
    }

    /**
     * A whole message of buf's remaining bytes (readFully), or -1 when the stream ended before it
     * began. The timeout is the transport's (blocking streams have none of their own).
     */
    @Override
    public int recv(ByteBuffer buf, long timeoutNs) throws IOException {
        int want = buf.remaining();
        byte[] into = buf.hasArray() ? buf.array() : new byte[want];
        try {
            in.readFully(into, buf.hasArray() ? buf.arrayOffset() + buf.position() : 0, want);
        } catch (EOFException e) {
            return -1; // a message cut by the end of the stream is no message
        }
        if (buf.hasArray()) buf.position(buf.limit());
        else buf.put(into);
        return want;
    }

    @Override
    public boolean arrays() {
        return true;
    }

    @Override
    public Map<String, String> settings() throws IOException {
        return inner.settings();
    }

    @Override
    public void close() {
        inner.close(); // the streams hold nothing the transport's close does not end
    }
}
