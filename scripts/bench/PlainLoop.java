// The plain Java loop the Java kit is measured against (scripts/bench.sh): the calls a Java
// program makes, in two processes (this file launched twice: a JVM cannot fork), nothing
// around them. A writer and a reader on a FIFO (FileChannel.write / read) or a Unix stream
// socket (SocketChannel, UnixDomainSocketAddress), SIZE-byte messages from one direct
// ByteBuffer back to back for SECONDS; the reader times first to last message. lat: ping-pong
// over a Unix socket, the median round trip. Both JVMs run the loop for 0.1 s first
// (-Dplainloop.warmup=S), as bench.sh's --warmup 0.1 lets the kit's JIT compile its loops.
// PLAINLOOP_CHILD_CPU=N puts the second process on CPU N (bench.sh pins the first with taskset).
//
//   java PlainLoop.java tput fifo|unix SIZE SECONDS   -> mb_per_sec=X
//   java PlainLoop.java lat unix SIZE SECONDS         -> p50_ns=X
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class PlainLoop {
    // The same warm-up as bench.sh gives the kit (--warmup 0.1): the JIT gets as long in both.
    static final long WARMUP_NS = (long) (Double.parseDouble(System.getProperty("plainloop.warmup", "0.1")) * 1e9);

    public static void main(String[] a) throws Exception {
        String mode = a[0], kind = a[1];
        int size = Integer.parseInt(a[2]);
        double seconds = Double.parseDouble(a[3]);
        if (a.length > 4) {
            peer(mode, kind, size, seconds, Paths.get(a[4]));
            return;
        }
        Path folder = Files.createTempDirectory("plainloop-");
        Path path = folder.resolve("p");
        ServerSocketChannel listener = null;
        if (kind.equals("fifo")) {
            new ProcessBuilder("mkfifo", "-m", "600", path.toString()).inheritIO().start().waitFor();
        } else {
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(path));
        }
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String self = System.getProperty("plainloop.self", "scripts/bench/PlainLoop.java");
        List<String> childCommand = new ArrayList<>();
        // PLAINLOOP_CHILD_CPU=N: the child (writer, ponger) on CPU N, as ipchost --affinity pins
        // the other side; the parent is pinned by whoever starts it (taskset).
        String childCpu = System.getenv().getOrDefault("PLAINLOOP_CHILD_CPU", "");
        if (!childCpu.isEmpty()) childCommand.addAll(List.of("taskset", "-c", childCpu));
        childCommand.addAll(List.of(java, "-XX:-UsePerfData", "-Dplainloop.warmup=" + WARMUP_NS / 1e9, self, mode, kind, a[2], a[3], path.toString()));
        Process child = new ProcessBuilder(childCommand).inheritIO().start();
        ByteBuffer m = ByteBuffer.allocateDirect(size);
        try {
            if (mode.equals("lat")) {
                SocketChannel c = listener.accept();
                long[] rtts = new long[1 << 22];
                int n = 0;
                long warm = System.nanoTime() + WARMUP_NS;
                while (System.nanoTime() < warm) pingPong(c, m);
                long end = System.nanoTime() + (long) (seconds * 1e9);
                while (n < rtts.length) {
                    long t0 = System.nanoTime();
                    pingPong(c, m);
                    long t1 = System.nanoTime();
                    rtts[n++] = t1 - t0;
                    if (t1 >= end) break;
                }
                c.close();
                Arrays.sort(rtts, 0, n);
                System.out.println("p50_ns=" + rtts[n / 2]);
            } else {
                ReadableByteChannel in = kind.equals("fifo") ? FileChannel.open(path, StandardOpenOption.READ)
                                                            : listener.accept();
                long warm = System.nanoTime() + WARMUP_NS;
                while (System.nanoTime() < warm) readOne(in, m);
                long count = 0, first = 0, last = 0;
                while (readOne(in, m)) {
                    last = System.nanoTime();
                    if (count++ == 0) first = last;
                }
                System.out.printf("mb_per_sec=%.3f%n", (count - 1) * (double) size / ((last - first) / 1e9) / 1e6);
            }
        } finally {
            child.waitFor();
            Files.deleteIfExists(path);
            Files.deleteIfExists(folder);
        }
    }

    static boolean readOne(ReadableByteChannel in, ByteBuffer m) throws Exception {
        m.clear();
        while (m.hasRemaining())
            if (in.read(m) < 0) return false;
        return true;
    }

    static void pingPong(SocketChannel c, ByteBuffer m) throws Exception {
        m.clear();
        while (m.hasRemaining()) c.write(m);
        readOne(c, m);
    }

    /** The writer (throughput) or the ponger (latency). */
    static void peer(String mode, String kind, int size, double seconds, Path path) throws Exception {
        ByteBuffer m = ByteBuffer.allocateDirect(size);
        if (mode.equals("lat")) {
            SocketChannel s = SocketChannel.open(UnixDomainSocketAddress.of(path));
            while (readOne(s, m)) {
                m.flip();
                while (m.hasRemaining()) s.write(m);
            }
            return;
        }
        WritableByteChannel out = kind.equals("fifo") ? FileChannel.open(path, StandardOpenOption.WRITE)
                                                     : SocketChannel.open(UnixDomainSocketAddress.of(path));
        long end = System.nanoTime() + WARMUP_NS + (long) (seconds * 1e9);
        long n = 0;
        try {
            while (true) {
                m.clear();
                while (m.hasRemaining()) out.write(m);
                if ((++n & 15) == 0 && System.nanoTime() >= end) break;
            }
        } catch (java.io.IOException e) {
            // the reader is gone
        }
        out.close();
    }
}
