// S3's shape: a Java writer and reader of 1 KiB messages on a System V queue, one JNI call a
// message (sysv_jni.c: msgsnd / msgrcv on a direct ByteBuffer, its first 8 bytes the type), as
// the Java write-up measured it. Shares no code with kits/java. Run as a source file with the
// library beside it (-Djava.library.path):
//   java SysvLoop.java read IDFILE COUNT SIZE WARMUP   makes the queue (IPC_PRIVATE, 0600),
//                                                     writes its id, reads COUNT, removes it
//   java SysvLoop.java write IDFILE COUNT SIZE         sends COUNT messages of SIZE bytes
// The reader prints "mb_per_sec=..." from the first message WARMUP seconds after its first (the
// kit's declared warm-up left out, as the kit's case leaves it out) to its last.
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

public final class SysvLoop {
    static native int create();

    static native int remove(int q);

    static native int send(int q, ByteBuffer buf, int len);

    static native int receive(int q, ByteBuffer buf, int max);

    public static void main(String[] args) throws Exception {
        System.loadLibrary("sysvloop");
        Path idFile = Path.of(args[1]);
        int count = Integer.parseInt(args[2]), size = Integer.parseInt(args[3]);
        ByteBuffer m = ByteBuffer.allocateDirect(8 + size).order(ByteOrder.nativeOrder());
        m.putLong(0, 1); // the message type
        if (args[0].equals("write")) {
            int q = Integer.parseInt(Files.readString(idFile).trim());
            for (int i = 0; i < count; i++)
                if (send(q, m, size) < 0) throw new IllegalStateException("msgsnd failed");
            return;
        }
        int q = create();
        if (q < 0) throw new IllegalStateException("msgget failed");
        try {
            Files.writeString(idFile, Integer.toString(q));
            long warmupNs = (long) (Double.parseDouble(args[4]) * 1e9);
            long first = 0, start = 0, timed = 0;
            for (int i = 0; i < count; i++) {
                if (receive(q, m, size) != size) throw new IllegalStateException("msgrcv failed");
                long now = i == 0 || start == 0 ? System.nanoTime() : 0;
                if (i == 0) first = now;
                if (start == 0 && now - first >= warmupNs) start = now;
                else if (start != 0) timed++;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f%n",
                              timed * (double) size / seconds / 1e6, timed / seconds, seconds);
        } finally {
            remove(q);
        }
    }
}
