package ipcbench.kit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The kit's JNI library (kits/java/jni/ipcbench_java.c), loaded from the kit folder: what the
 * JDK cannot do. Without it (a JDK without jni.h at build time) the kit still runs the
 * sockets, UDP and FIFOs it creates with mkfifo(1), and refuses the rest by name.
 */
public final class Native {
    private static final String LIBRARY = "libipcbench_java.so";
    private static final String MISSING;

    static {
        String dir = System.getProperty("ipcbench.kit.dir", "");
        Path lib = Paths.get(dir, LIBRARY);
        String missing = null;
        try {
            System.load(lib.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            missing = lib + ": " + e.getMessage();
        }
        MISSING = missing;
    }

    private Native() {}

    public static boolean loaded() {
        return MISSING == null;
    }

    /** Fails a request that needs the library, naming what and why. */
    public static void require(String what) throws KitException {
        if (MISSING != null)
            throw new KitException(KitException.E_UNSUPPORTED, what + " needs the Java kit's JNI library, "
                    + "which did not load (" + MISSING + "); rebuild with a JDK that has jni.h "
                    + "(scripts/install-deps.sh --kits installs openjdk-17-jdk-headless)");
    }

    static KitException failure(int status, String call, int result) {
        return new KitException(status, call + ": " + strerror0(-result));
    }

    static void check(String call, int result) throws KitException {
        if (result < 0) throw failure(KitException.E_SYSTEM, call, result);
    }

    public static void mkfifo(String path) throws IOException, KitException {
        if (loaded()) {
            check("mkfifo " + path, mkfifo0(path, 0600));
            return;
        }
        Process p = new ProcessBuilder("mkfifo", "-m", "600", path).inheritIO().start();
        try {
            if (p.waitFor() != 0) throw new KitException(KitException.E_SYSTEM, "mkfifo " + path + " failed");
        } catch (InterruptedException e) {
            throw new IOException("interrupted", e);
        }
    }

    public static boolean isFifo(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode");
            return (mode & 0170000) == 0010000;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    public static void setPipeSize(String path, int size) throws KitException {
        require("option pipe_size");
        int r = pipeSize0(path, size);
        if (r < 0)
            throw failure(KitException.E_BAD_OPTION, "option pipe_size=" + size + ": F_SETPIPE_SZ "
                    + "(above fs.pipe-max-size needs root)", r);
    }

    public static long pipeSize(String path) {
        int r = pipeSize0(path, 0);
        return Math.max(0, r);
    }

    public static void pinProcess(int cpu) throws KitException {
        require("--affinity (pinning every JVM thread)");
        check("sched_setaffinity to CPU " + cpu, pinProcess0(cpu));
    }

    static native int mkfifo0(String path, int mode);

    static native int pipeSize0(String path, int size);

    static native int pinProcess0(int cpu);

    static native String strerror0(int error);

    static native int msgget0();

    static native long msgQueueBytes0(int id, long n);

    static native int msgRemove0(int id);

    static native int msgsnd0(int id, ByteBuffer buf, int length);

    static native int msgrcv0(int id, ByteBuffer buf, int capacity, boolean nowait);

    static native int mqOpen0(String name, boolean writes, boolean create, long maxmsg, long msgsize);

    static native int mqAttributes0(int q, long[] out);

    static native int mqSend0(int q, ByteBuffer buf, int length);

    static native int mqReceive0(int q, ByteBuffer buf, int capacity, long timeoutNs);

    static native int mqClose0(int q);

    static native int mqUnlink0(String name);
}
