package ipcbench.kit;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The control channel of docs/worker-protocol.md: frames of a 4-byte big-endian length and that
 * many bytes of UTF-8 JSON, an object with a string "type". The socket is the one ipchost
 * handed over (System.inheritedChannel: the wrapper script moves it to standard input).
 */
public final class Channel {
    public static final int MAX_FRAME_BYTES = 8 << 20;

    private final SocketChannel socket;
    private final Selector readable;
    private final Selector writable;
    private ByteBuffer in = ByteBuffer.allocate(1 << 16);

    public Channel(SocketChannel socket) throws IOException {
        this.socket = socket;
        socket.configureBlocking(false);
        readable = Selector.open();
        writable = Selector.open();
        socket.register(readable, SelectionKey.OP_READ);
        socket.register(writable, SelectionKey.OP_WRITE);
    }

    public synchronized void send(Map<String, Object> message) throws IOException {
        byte[] body = Json.write(message).getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(4 + body.length);
        out.putInt(body.length).put(body).flip();
        while (out.hasRemaining()) {
            if (socket.write(out) == 0) writable.select(1000);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> next() throws KitException {
        if (in.position() < 4) return null;
        int length = in.getInt(0);
        if (length < 0 || length > MAX_FRAME_BYTES)
            throw KitException.protocol("a frame of " + Integer.toUnsignedString(length)
                                        + " bytes (at most " + MAX_FRAME_BYTES + ")");
        if (in.position() < 4 + length) {
            if (in.capacity() < 4 + length) {
                ByteBuffer bigger = ByteBuffer.allocate(4 + length);
                in.flip();
                bigger.put(in);
                in = bigger;
            }
            return null;
        }
        String body = new String(in.array(), 4, length, StandardCharsets.UTF_8);
        in.flip().position(4 + length);
        in.compact();
        Object message;
        try {
            message = Json.parse(body);
        } catch (IllegalArgumentException e) {
            throw KitException.protocol("a frame that is not JSON: " + e.getMessage());
        }
        if (!(message instanceof Map) || !(((Map<String, Object>) message).get("type") instanceof String))
            throw KitException.protocol("a message that is not an object with a string 'type'");
        return (Map<String, Object>) message;
    }

    /**
     * The next message; null when timeoutMs (≥ 0) passed first, -1 waits for ever.
     * EOFException when the orchestrator closed the channel.
     */
    public Map<String, Object> receive(long timeoutMs) throws IOException, KitException {
        long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000;
        while (true) {
            Map<String, Object> message = next();
            if (message != null) return message;
            int n = socket.read(in);
            if (n < 0) throw new EOFException("the orchestrator closed the control channel");
            if (n > 0) continue;
            long left = deadline - System.nanoTime();
            if (timeoutMs >= 0 && left <= 0) return null;
            readable.select(timeoutMs < 0 ? 0 : Math.max(1, left / 1_000_000));
            readable.selectedKeys().clear();
        }
    }

    public Map<String, Object> poll() throws IOException, KitException {
        return receive(0);
    }

    // Fields of a message, type-checked: the error names the message and the field.

    static String type(Map<String, Object> m) {
        return (String) m.get("type");
    }

    static Object field(Map<String, Object> m, String name, boolean required) throws KitException {
        if (!m.containsKey(name)) {
            if (required) throw KitException.protocol(type(m) + " message field '" + name + "' is missing");
            return null;
        }
        return m.get(name);
    }

    static KitException wrongType(Map<String, Object> m, String name) {
        return KitException.protocol(type(m) + " message field '" + name + "' has the wrong type");
    }

    public static String text(Map<String, Object> m, String name, String fallback) throws KitException {
        Object v = field(m, name, fallback == null);
        if (v == null) return fallback;
        if (!(v instanceof String)) throw wrongType(m, name);
        return (String) v;
    }

    public static long integer(Map<String, Object> m, String name, Long fallback) throws KitException {
        Object v = field(m, name, fallback == null);
        if (v == null) return fallback;
        if (!(v instanceof Long)) throw wrongType(m, name);
        return (Long) v;
    }

    public static double number(Map<String, Object> m, String name, Double fallback) throws KitException {
        Object v = field(m, name, fallback == null);
        if (v == null) return fallback;
        if (!(v instanceof Long) && !(v instanceof Double)) throw wrongType(m, name);
        return ((Number) v).doubleValue();
    }

    public static boolean bool(Map<String, Object> m, String name, Boolean fallback) throws KitException {
        Object v = field(m, name, fallback == null);
        if (v == null) return fallback;
        if (!(v instanceof Boolean)) throw wrongType(m, name);
        return (Boolean) v;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Map<String, Object> m, String name, boolean required)
            throws KitException {
        Object v = field(m, name, required);
        if (v == null && !required) return java.util.Collections.emptyMap();
        if (!(v instanceof Map)) throw wrongType(m, name);
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(Map<String, Object> m, String name) throws KitException {
        Object v = field(m, name, true);
        if (!(v instanceof List)) throw wrongType(m, name);
        return (List<Object>) v;
    }
}
