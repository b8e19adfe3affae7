// A Java reader of fixed-size records on a FIFO, written the two ways the JDK's documentation
// shows reading binary data. Shares no code with kits/java.
//   streams  new DataInputStream(new BufferedInputStream(new FileInputStream(path))) and
//            readFully(record) per record (java.io.DataInputStream, "Basic I/O: Data Streams" in
//            The Java Tutorials): what `--impl java:streams` is compared with.
//   nio      FileChannel.open(path, READ) and read(ByteBuffer) until the record's buffer is full,
//            then clear() ("Basic I/O: Reading and Writing Files by Using Channel I/O"): what the
//            default `--impl java` (FileChannel.read) is compared with.
// The writer FileOutputStream.write(record) per record, one write(2) each as the kit's and the
// native writer's are. Run as a source file:
//   java FifoRecords.java read PATH COUNT SIZE [WARMUP [streams|nio]]   makes the FIFO, reads COUNT
//   java FifoRecords.java write PATH COUNT SIZE   writes COUNT records of SIZE bytes
// The reader prints "mb_per_sec=... msgs_per_sec=... seconds=..." from its first record (with
// WARMUP, from the first record WARMUP seconds after that: the JIT's compiling left out, as the
// kit's declared warm-up leaves it out) to its last.
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

public final class FifoRecords {
    /** {start, records after it}: the clock read only until the warm-up has passed. */
    static long[] readStreams(String path, int count, byte[] record, long warmupNs) throws Exception {
        long first = 0, start = 0, timed = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(path)))) {
            for (int i = 0; i < count; i++) {
                in.readFully(record);
                long now = i == 0 || start == 0 ? System.nanoTime() : 0;
                if (i == 0) first = now;
                if (start == 0 && now - first >= warmupNs) start = now;
                else if (start != 0) timed++;
            }
        }
        return new long[] {start, timed};
    }

    static long[] readNio(String path, int count, int size, long warmupNs) throws Exception {
        long first = 0, start = 0, timed = 0;
        ByteBuffer record = ByteBuffer.allocate(size);
        try (FileChannel in = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
            for (int i = 0; i < count; i++) {
                record.clear();
                while (record.hasRemaining())
                    if (in.read(record) < 0) throw new IllegalStateException("short read");
                long now = i == 0 || start == 0 ? System.nanoTime() : 0;
                if (i == 0) first = now;
                if (start == 0 && now - first >= warmupNs) start = now;
                else if (start != 0) timed++;
            }
        }
        return new long[] {start, timed};
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || args.length > 6) {
            System.err.println("usage: java FifoRecords.java read|write PATH COUNT SIZE [WARMUP [streams|nio]]");
            System.exit(2);
        }
        String path = args[1];
        int count = Integer.parseInt(args[2]);
        byte[] record = new byte[Integer.parseInt(args[3])];
        if (args[0].equals("write")) {
            try (FileOutputStream out = new FileOutputStream(path)) {
                for (int i = 0; i < count; i++) out.write(record);
            }
            return;
        }
        if (new ProcessBuilder("mkfifo", "-m", "600", path).inheritIO().start().waitFor() != 0)
            throw new IllegalStateException("mkfifo " + path);
        long warmupNs = args.length >= 5 ? (long) (Double.parseDouble(args[4]) * 1e9) : 0;
        boolean nio = args.length == 6 && args[5].equals("nio");
        long[] window = nio ? readNio(path, count, record.length, warmupNs) : readStreams(path, count, record, warmupNs);
        long start = window[0], timed = window[1];
        double seconds = (System.nanoTime() - start) / 1e9;
        Files.delete(Path.of(path));
        System.out.printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f%n",
                          timed * (double) record.length / seconds / 1e6, timed / seconds, seconds);
    }
}
