package ipcbench.kit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Collections;
import java.util.Map;

/**
 * One end of one stream of a case; the loops call only these members. An adapter around your
 * own code extends this class and is registered with {@link Transports#register}.
 */
public abstract class Endpoint {
    /** A deadline passed: thrown without a stack trace (the unreliable loops poll with it). */
    public static final class TimedOut extends Exception {
        private static final long serialVersionUID = 1L;

        public TimedOut(String what) {
            super(what, null, false, false);
        }
    }

    /** True: a byte stream (a read may end inside a message); false: one message a receive. */
    public boolean stream() {
        return true;
    }

    /** True: nothing is lost (the receiver blocks and ends on the end marker). */
    public boolean reliable() {
        return true;
    }

    /** The calls behind send and recv, named in the result's path. */
    public abstract String sendCall();

    public abstract String recvCall();

    /** Creator: the address its connector is given. */
    public abstract String export() throws IOException;

    /** Both roles at once: accept / attach within timeoutNs. */
    public abstract void connect(long timeoutNs) throws IOException, KitException, TimedOut;

    /** Sends buf's remaining bytes, all of them (one message, or several on a stream). */
    public abstract void send(ByteBuffer buf) throws IOException, KitException;

    /**
     * Reads into buf's remaining space: on a stream some bytes (-1: the peer closed), else one
     * message, returning its length. timeoutNs &lt; 0 waits for ever; TimedOut when it passed.
     */
    public abstract int recv(ByteBuffer buf, long timeoutNs) throws IOException, KitException, TimedOut;

    /** What the transport really set, as text (pipe_size, sndbuf, nodelay...). */
    public Map<String, String> settings() throws IOException {
        return Collections.emptyMap();
    }

    /** A blocking byte channel the receive loop may read straight from, or null. */
    public ReadableByteChannel channel() {
        return null;
    }

    /** The java.io streams of a byte-stream transport, once connected (--api streams), or null. */
    public java.io.InputStream inputStream() throws IOException {
        return null;
    }

    public java.io.OutputStream outputStream() throws IOException {
        return null;
    }

    /** True: the loops hand send and recv heap buffers (array-backed), as java.io reads and writes. */
    public boolean arrays() {
        return false;
    }

    public abstract void close();
}
