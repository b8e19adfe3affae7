package ipcbench.kit;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * pipe.fifo as a Java program opens a FIFO: new FileInputStream / FileOutputStream, blocking, and
 * their FileChannel. The data plane's open
 * order (docs/worker-protocol.md) holds: a blocked open already counts as a reader or writer on
 * Linux, so the native side's O_NONBLOCK open meets it. The writer sends the one-byte hello 'H'
 * after its open; the reader reads it. A deadline that passes while an open blocks is met by
 * opening the other end ourselves (which releases the open) and failing with a timeout.
 */
final class FifoEndpoint extends Endpoint {
    private final String direction;
    private final Transports.PrivateFolder folder;
    private final Path path;
    private final int pipeSize;
    private FileChannel file;
    private java.io.Closeable stream; // the FileInputStream or FileOutputStream file belongs to

    FifoEndpoint(Transports.Spec spec) throws IOException, KitException {
        Transports.checkOptions(spec, Set.of("pipe_size"), Map.of("splice", "none"));
        if (Transports.BOTH.equals(spec.direction))
            throw new KitException(KitException.E_UNSUPPORTED, "a pipe carries data one way, not both");
        direction = spec.direction;
        String size = spec.options.getOrDefault("pipe_size", "");
        pipeSize = size.isEmpty() ? 0 : Transports.parseBytes("pipe_size", size);
        if (pipeSize > 0) Native.require("option pipe_size (F_SETPIPE_SZ)");
        if (spec.creator()) {
            folder = new Transports.PrivateFolder(spec.runtimeDir);
            path = folder.name("fifo");
            Native.mkfifo(path.toString());
        } else {
            folder = null;
            if (!spec.address.startsWith("/"))
                throw new KitException(KitException.E_BAD_ADDRESS, "pipe.fifo address '"
                        + spec.address + "' is not an absolute FIFO path");
            path = Paths.get(spec.address);
            if (!Native.isFifo(path))
                throw new KitException(KitException.E_BAD_ADDRESS, "pipe.fifo address '"
                        + spec.address + "' is not an existing FIFO");
        }
    }

    @Override
    public String sendCall() {
        return "FileChannel.write";
    }

    @Override
    public String recvCall() {
        return "FileChannel.read";
    }

    @Override
    public String export() {
        return path.toString();
    }

    private boolean reads() {
        return Transports.RECV.equals(direction);
    }

    @Override
    public void connect(long timeoutNs) throws IOException, KitException, TimedOut {
        // Opened as java.io opens it (FileInputStream / FileOutputStream); its FileChannel is the
        // same descriptor, which the NIO loops use and the streams API (--api streams) does not.
        CompletableFuture<java.io.Closeable> opening = CompletableFuture.supplyAsync(() -> {
            try {
                if (!reads()) return new FileOutputStream(path.toFile());
                FileInputStream f = new FileInputStream(path.toFile());
                expectHello(f.getChannel());
                return f;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, FifoEndpoint::daemon);
        try {
            stream = timeoutNs < 0 ? opening.get() : opening.get(timeoutNs, TimeUnit.NANOSECONDS);
            file = reads() ? ((FileInputStream) stream).getChannel() : ((FileOutputStream) stream).getChannel();
        } catch (TimeoutException e) {
            release(opening);
            throw new TimedOut(reads() ? "timed out waiting for the writer to attach to the pipe"
                                       : "timed out waiting for a reader to open FIFO " + path);
        } catch (InterruptedException e) {
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof RuntimeException ? e.getCause().getCause() : e.getCause();
            if (cause instanceof NoSuchFileException || cause instanceof java.io.FileNotFoundException)
                throw new KitException(KitException.E_CLOSED, "FIFO " + path + " was removed by its creator");
            if (cause instanceof KitException) throw (KitException) cause;
            throw cause instanceof IOException ? (IOException) cause : new IOException(cause);
        }
        if (pipeSize > 0) Native.setPipeSize(path.toString(), pipeSize);
        if (!reads()) file.write(ByteBuffer.wrap(new byte[] {'H'}));
    }

    /** Each open on a thread of its own: a blocked one must not hold up the next. */
    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "fifo-open");
        t.setDaemon(true);
        t.start();
    }

    private static void expectHello(FileChannel f) throws IOException {
        ByteBuffer hello = ByteBuffer.allocate(1);
        if (f.read(hello) != 1 || hello.get(0) != 'H') {
            f.close();
            throw new IOException("pipe handshake: expected the writer's 'H'");
        }
    }

    /** Ends an open (or a hello read) that is still blocked: opens the other end, closes it. */
    private void release(CompletableFuture<java.io.Closeable> opening) {
        StandardOpenOption other = reads() ? StandardOpenOption.WRITE : StandardOpenOption.READ;
        try (FileChannel f = FileChannel.open(path, other)) {
            f.size(); // nothing: the open itself released the other side
        } catch (IOException ignored) {
            // the FIFO is gone: the blocked open failed on its own
        }
        try {
            opening.get(1, TimeUnit.SECONDS).close();
        } catch (Exception ignored) {
            // it failed, which is what we wanted
        }
    }

    @Override
    public void send(ByteBuffer buf) throws IOException, KitException {
        try {
            while (buf.hasRemaining()) file.write(buf);
        } catch (IOException e) {
            if (e instanceof ClosedChannelException || String.valueOf(e.getMessage()).contains("Broken pipe"))
                throw new KitException(KitException.E_CLOSED, "pipe.fifo: the reader closed the pipe");
            throw e;
        }
    }

    @Override
    public int recv(ByteBuffer buf, long timeoutNs) throws IOException {
        return file.read(buf);
    }

    @Override
    public FileChannel channel() {
        return file;
    }

    @Override
    public java.io.InputStream inputStream() {
        return reads() ? (FileInputStream) stream : null;
    }

    @Override
    public java.io.OutputStream outputStream() {
        return reads() ? null : (FileOutputStream) stream;
    }

    @Override
    public Map<String, String> settings() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        if (Native.loaded() && file != null) out.put("pipe_size", Long.toString(Native.pipeSize(path.toString())));
        out.put("splice", "none");
        return out;
    }

    @Override
    public void close() {
        try {
            if (stream != null) stream.close(); // and its channel
            else if (file != null) file.close();
        } catch (IOException ignored) {
            // closing a pipe fails only when it was closed
        }
        file = null;
        stream = null;
        if (folder != null) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // ipchost removes the run folder after the case
            }
            folder.remove();
        }
    }
}
