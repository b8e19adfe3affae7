package ipcbench.kit;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The transports this kit implements, by id, and what they share. */
public final class Transports {
    public static final String SEND = "send";
    public static final String RECV = "recv";
    public static final String BOTH = "both";
    public static final String CREATOR = "creator";
    public static final String CONNECTOR = "connector";

    /** Everything setup gives one endpoint. */
    public static final class Spec {
        public String transport;
        public String role;
        public String direction;
        public String address;
        public Map<String, String> options;
        public String runtimeDir;
        public long maxMessage;
        /** Protocol 1.1: what a connector of socket.tcp or udp.inet presents first (empty: none). */
        public byte[] bindingKey = new byte[0];

        public boolean creator() {
            return CREATOR.equals(role);
        }
    }

    public interface Factory {
        Endpoint open(Spec spec) throws IOException, KitException;
    }

    private static final Map<String, Factory> FACTORIES = new TreeMap<>();

    static {
        register("pipe.fifo", FifoEndpoint::new);
        register("socket.tcp", SocketEndpoint::new);
        register("socket.unix", SocketEndpoint::new);
        register("udp.inet", UdpEndpoint::new);
        register("mq.sysv", QueueEndpoint::open);
        register("mq.posix", QueueEndpoint::open);
    }

    private Transports() {}

    public static void register(String id, Factory factory) {
        FACTORIES.put(id, factory);
    }

    public static Factory factory(String id) {
        return FACTORIES.get(id);
    }

    public static void unregister(String id) {
        FACTORIES.remove(id);
    }

    public static Set<String> ids() {
        return FACTORIES.keySet();
    }

    public static Endpoint open(Spec spec) throws IOException, KitException {
        Factory f = FACTORIES.get(spec.transport);
        if (f == null)
            throw new KitException(KitException.E_UNSUPPORTED, "this kit does not implement "
                    + spec.transport + "; it has " + String.join(", ", FACTORIES.keySet()));
        return f.open(spec);
    }

    /** Options this kit reads (known) or accepts only at their default (fixed). */
    public static void checkOptions(Spec spec, Set<String> known, Map<String, String> fixed)
            throws KitException {
        for (Map.Entry<String, String> e : spec.options.entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            if (fixed.containsKey(key)) {
                if (!value.isEmpty() && !value.equals(fixed.get(key)))
                    throw new KitException(KitException.E_UNSUPPORTED, "this kit runs " + spec.transport
                            + " with " + key + "=" + fixed.get(key) + " only, not " + value);
            } else if (!known.contains(key)) {
                Set<String> all = new TreeSet<>(known);
                all.addAll(fixed.keySet());
                throw new KitException(KitException.E_UNKNOWN_OPTION, "unknown option '" + key + "' for "
                        + spec.transport + "; known: " + String.join(", ", all));
            }
        }
    }

    public static int parseBytes(String key, String value) throws KitException {
        String text = value.trim().toUpperCase();
        long scale = 1;
        if (!text.isEmpty() && "KMG".indexOf(text.charAt(text.length() - 1)) >= 0) {
            scale = 1L << (10 * (1 + "KMG".indexOf(text.charAt(text.length() - 1))));
            text = text.substring(0, text.length() - 1);
        }
        long n = -1;
        if (!text.isEmpty() && text.length() < 12 && text.chars().allMatch(Character::isDigit))
            n = Long.parseLong(text) * scale;
        if (n <= 0 || n > (1L << 30))
            throw new KitException(KitException.E_BAD_OPTION, "option " + key + "=" + value
                    + ": expected a byte count from 1 to 1073741824, for example 1M");
        return (int) n;
    }

    /** HOST:PORT with a numeric IPv4 host, or [IPV6]:PORT. */
    public static InetSocketAddress parseInet(String text, String what) throws KitException {
        try {
            String host;
            String port;
            if (text.startsWith("[")) {
                int close = text.indexOf("]:");
                host = text.substring(1, close);
                port = text.substring(close + 2);
                if (!host.contains(":")) throw new IllegalArgumentException();
            } else {
                int colon = text.lastIndexOf(':');
                host = text.substring(0, colon);
                port = text.substring(colon + 1);
                if (!host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) throw new IllegalArgumentException();
            }
            int p = Integer.parseInt(port);
            if (p < 0 || p > 65535) throw new IllegalArgumentException();
            return new InetSocketAddress(InetAddress.getByName(host), p); // numeric: no lookup
        } catch (RuntimeException | IOException e) {
            throw new KitException(KitException.E_BAD_ADDRESS, what + " '" + text
                    + "': expected HOST:PORT with a numeric host, e.g. 127.0.0.1:0 or [::1]:0");
        }
    }

    public static String formatInet(InetSocketAddress a) {
        InetAddress host = a.getAddress();
        if (host instanceof Inet6Address) {
            String h = host.isAnyLocalAddress() ? "::1" : host.getHostAddress();
            int zone = h.indexOf('%');
            if (zone >= 0) h = h.substring(0, zone);
            return "[" + h + "]:" + a.getPort();
        }
        String h = host.isAnyLocalAddress() ? "127.0.0.1" : ((Inet4Address) host).getHostAddress();
        return h + ":" + a.getPort();
    }

    /** A folder of our own (0700) in the run folder the host gave: names in it are ours. */
    public static final class PrivateFolder {
        final Path path;
        int count;

        public PrivateFolder(String runtimeDir) throws IOException, KitException {
            if (runtimeDir == null || runtimeDir.isEmpty())
                throw new KitException(KitException.E_BAD_ADDRESS,
                        "the setup gave no runtime_dir to create names in");
            path = Files.createTempDirectory(Paths.get(runtimeDir), "java-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }

        public Path name(String prefix) {
            count++;
            return path.resolve(prefix + count);
        }

        public void remove() {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // not empty or gone: ipchost removes the run folder after the case
            }
        }
    }

    static long deadlineOf(long timeoutNs) {
        return timeoutNs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNs;
    }

    static long leftOf(long deadline) {
        return deadline == Long.MAX_VALUE ? -1 : Math.max(0, deadline - System.nanoTime());
    }
}
