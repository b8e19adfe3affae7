// A Java writer and reader of fixed-size records on each transport the Java kit offers, written
// the way the JDK's documentation shows each. Shares no code with kits/java.
//   nio      pipe.fifo: FileChannel.open and read(ByteBuffer) until the record is full, write
//            ("Reading and Writing Files by Using Channel I/O", The Java Tutorials);
//            socket.tcp / socket.unix: ServerSocketChannel.open (StandardProtocolFamily.UNIX and
//            UnixDomainSocketAddress for the Unix socket, JEP 380), accept, SocketChannel.read /
//            write; udp.inet: DatagramChannel.bind and receive, DatagramChannel.send
//            (java.nio.channels); mq.sysv / mq.posix: one JNI call a message (records_queues.c),
//            as S3's write-up reached its queue
//   streams  DataInputStream(BufferedInputStream(in)).readFully per record, and
//            DataOutputStream(BufferedOutputStream(out)).write + flush per record ("Data
//            Streams", The Java Tutorials), over FileInputStream / FileOutputStream, a Socket's
//            streams (TCP), Channels.newInputStream / newOutputStream (a Unix SocketChannel)
//   java Records read TRANSPORT PATH SIZE API WARMUP   makes the endpoint, writes PATH.ready
//   java Records write TRANSPORT ENDPOINT SIZE API SECONDS
// The reader prints "mb_per_sec=..." over the records from WARMUP seconds after the first to the
// end (EOF on a stream, an empty message on a datagram or queue).
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

public final class Records {
    static native int sysvCreate();
    static native int sysvRemove(int q);
    static native int sysvSend(int q, ByteBuffer buf, int len);
    static native int sysvReceive(int q, ByteBuffer buf, int max);
    static native int posixCreate(String name, int size);
    static native int posixOpen(String name);
    static native int posixUnlink(String name);
    static native int posixSend(int q, ByteBuffer buf, int len);
    static native int posixReceive(int q, ByteBuffer buf, int max);

    /** Counts the records that arrive from the warm-up's end. */
    static final class Meter {
        final int size;
        final long warmupNs;
        long first, start, n, startN;

        Meter(int size, double warmup) {
            this.size = size;
            this.warmupNs = (long) (warmup * 1e9);
        }

        void got() {
            if (++n == 1) first = System.nanoTime();
            else if (start == 0 && (n & 15) == 0) {
                long now = System.nanoTime();
                if (now - first >= warmupNs) {
                    start = now;
                    startN = n;
                }
            }
        }

        void report() {
            if (start == 0) throw new IllegalStateException("the run ended within its warm-up (" + n + " records)");
            double seconds = (System.nanoTime() - start) / 1e9;
            long timed = n - startN;
            System.out.printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f%n", timed * (double) size / seconds / 1e6,
                              timed / seconds, seconds);
        }
    }

    static void ready(String path, String endpoint) throws Exception {
        Path tmp = Path.of(path + ".ready.tmp");
        Files.writeString(tmp, endpoint);
        Files.move(tmp, Path.of(path + ".ready"));
    }

    static void readChannel(ReadableByteChannel in, Meter m) throws Exception {
        ByteBuffer record = ByteBuffer.allocate(m.size);
        while (true) {
            record.clear();
            while (record.hasRemaining())
                if (in.read(record) < 0) return;
            m.got();
        }
    }

    static void readStream(InputStream raw, Meter m) throws Exception {
        byte[] record = new byte[m.size];
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
            while (true) {
                try {
                    in.readFully(record);
                } catch (EOFException end) {
                    return;
                }
                m.got();
            }
        }
    }

    static void writeChannel(WritableByteChannel out, int size, long until) throws Exception {
        ByteBuffer record = ByteBuffer.allocate(size);
        for (long i = 0; (i & 15) != 0 || System.nanoTime() < until; i++) {
            record.clear();
            while (record.hasRemaining()) out.write(record);
        }
    }

    static void writeStream(OutputStream raw, int size, long until) throws Exception {
        byte[] record = new byte[size];
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw))) {
            for (long i = 0; (i & 15) != 0 || System.nanoTime() < until; i++) {
                out.write(record);
                out.flush();
            }
        }
    }

    static void read(String transport, String path, String api, Meter m) throws Exception {
        boolean streams = api.equals("streams");
        switch (transport) {
            case "pipe.fifo":
                if (new ProcessBuilder("mkfifo", "-m", "600", path).inheritIO().start().waitFor() != 0)
                    throw new IllegalStateException("mkfifo " + path);
                ready(path, path);
                if (streams) readStream(new FileInputStream(path), m);
                else try (FileChannel in = FileChannel.open(Path.of(path), StandardOpenOption.READ)) { readChannel(in, m); }
                return;
            case "socket.unix": {
                ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                server.bind(UnixDomainSocketAddress.of(path));
                ready(path, path);
                try (SocketChannel c = server.accept()) {
                    server.close();
                    if (streams) readStream(Channels.newInputStream(c), m);
                    else readChannel(c, m);
                }
                return;
            }
            case "socket.tcp":
                if (streams) {
                    ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                    ready(path, "127.0.0.1:" + server.getLocalPort());
                    try (Socket s = server.accept()) {
                        server.close();
                        readStream(s.getInputStream(), m);
                    }
                } else {
                    ServerSocketChannel server = ServerSocketChannel.open();
                    server.bind(new InetSocketAddress("127.0.0.1", 0));
                    ready(path, "127.0.0.1:" + ((InetSocketAddress) server.getLocalAddress()).getPort());
                    try (SocketChannel c = server.accept()) {
                        server.close();
                        readChannel(c, m);
                    }
                }
                return;
            case "udp.inet": {
                DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                ready(path, "127.0.0.1:" + ((InetSocketAddress) ch.getLocalAddress()).getPort());
                ByteBuffer buf = ByteBuffer.allocate(65536);
                while (true) {
                    buf.clear();
                    ch.receive(buf);
                    if (buf.position() == 0) return;
                    m.got();
                }
            }
            default:
                readQueue(transport, path, m);
        }
    }

    static void readQueue(String transport, String path, Meter m) throws Exception {
        System.loadLibrary("recordsqueues");
        boolean sysv = transport.equals("mq.sysv");
        String name = "/records-java-" + ProcessHandle.current().pid();
        int q = sysv ? sysvCreate() : posixCreate(name, m.size);
        if (q < 0) throw new IllegalStateException(transport + ": " + q);
        try {
            ready(path, sysv ? Integer.toString(q) : name);
            ByteBuffer buf = ByteBuffer.allocateDirect(8 + m.size);
            while (true) {
                int n = sysv ? sysvReceive(q, buf, m.size) : posixReceive(q, buf, m.size);
                if (n < 0) throw new IllegalStateException(transport + " receive: " + n);
                if (n == 0) return;
                m.got();
            }
        } finally {
            if (sysv) sysvRemove(q);
            else posixUnlink(name);
        }
    }

    static void write(String transport, String endpoint, int size, String api, long until) throws Exception {
        boolean streams = api.equals("streams");
        switch (transport) {
            case "pipe.fifo":
                if (streams) writeStream(new FileOutputStream(endpoint), size, until);
                else try (FileChannel out = FileChannel.open(Path.of(endpoint), StandardOpenOption.WRITE)) { writeChannel(out, size, until); }
                return;
            case "socket.unix":
                try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(endpoint))) {
                    if (streams) writeStream(Channels.newOutputStream(c), size, until);
                    else writeChannel(c, size, until);
                }
                return;
            case "socket.tcp": {
                int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
                if (streams) try (Socket s = new Socket("127.0.0.1", port)) { writeStream(s.getOutputStream(), size, until); }
                else try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) { writeChannel(c, size, until); }
                return;
            }
            case "udp.inet": {
                int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
                InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
                try (DatagramChannel ch = DatagramChannel.open()) {
                    ByteBuffer record = ByteBuffer.allocate(size);
                    for (long i = 0; (i & 15) != 0 || System.nanoTime() < until; i++) {
                        record.clear();
                        ch.send(record, to);
                    }
                    for (int i = 0; i < 20; i++) { // the end: empty datagrams, spaced, in case the first are dropped
                        ch.send(ByteBuffer.allocate(0), to);
                        Thread.sleep(5);
                    }
                }
                return;
            }
            default:
                writeQueue(transport, endpoint, size, until);
        }
    }

    static void writeQueue(String transport, String endpoint, int size, long until) {
        System.loadLibrary("recordsqueues");
        boolean sysv = transport.equals("mq.sysv");
        int q = sysv ? Integer.parseInt(endpoint) : posixOpen(endpoint);
        if (q < 0) throw new IllegalStateException(transport + " open: " + q);
        ByteBuffer buf = ByteBuffer.allocateDirect(8 + size);
        buf.putLong(0, Long.reverseBytes(1)); // System V: mtype 1, the machine's order
        for (long i = 0; (i & 15) != 0 || System.nanoTime() < until; i++) {
            int r = sysv ? sysvSend(q, buf, size) : posixSend(q, buf, size);
            if (r < 0) throw new IllegalStateException(transport + " send: " + r);
        }
        if ((sysv ? sysvSend(q, buf, 0) : posixSend(q, buf, 0)) < 0) throw new IllegalStateException(transport + " end");
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 || !(args[0].equals("read") || args[0].equals("write"))) {
            System.err.println("usage: java Records read TRANSPORT PATH SIZE API WARMUP | write TRANSPORT ENDPOINT SIZE API SECONDS");
            System.exit(2);
        }
        String transport = args[1], where = args[2], api = args[4];
        int size = Integer.parseInt(args[3]);
        double seconds = Double.parseDouble(args[5]);
        if (args[0].equals("write")) {
            write(transport, where, size, api, System.nanoTime() + (long) (seconds * 1e9));
            return;
        }
        Meter m = new Meter(size, seconds);
        read(transport, where, api, m);
        if (transport.equals("pipe.fifo") || transport.equals("socket.unix")) Files.deleteIfExists(Path.of(where));
        m.report();
    }
}
