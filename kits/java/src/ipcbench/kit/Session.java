package ipcbench.kit;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One worker's session with the orchestrator (docs/worker-protocol.md, "A case, message by
 * message"): hello, welcome, setup, connect, run, close.
 */
public final class Session {
    static final List<String> VERSIONS = ProtocolGenerated.VERSIONS;

    private final Channel channel;
    private final String implementation;
    private boolean welcomed;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private long rssBeforeKib;

    public Session(SocketChannel socket, String implementation) throws IOException {
        this.channel = new Channel(socket);
        this.implementation = implementation;
    }

    public static String runtimeName() {
        String vm = System.getProperty("java.vm.name", "");
        return (vm.startsWith("OpenJDK") ? "OpenJDK " : "Java ") + System.getProperty("java.version");
    }

    static Map<String, Object> message(String type) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        return m;
    }

    /** The exit code: 0 after close, 1 when the orchestrator went away, 2 on garbage. */
    public int serve() throws IOException {
        Map<String, Object> hello = message("hello");
        hello.put("versions", new ArrayList<Object>(VERSIONS));
        hello.put("pid", ProcessHandle.current().pid());
        hello.put("implementation", implementation);
        hello.put("runtime", runtimeName());
        channel.send(hello);
        while (true) {
            Map<String, Object> m;
            try {
                m = channel.receive(-1);
            } catch (EOFException e) {
                return 1;
            } catch (KitException e) {
                error("control", e.status, "control channel: " + e.getMessage());
                return 2;
            }
            String stage = Channel.type(m);
            try {
                if (dispatch(stage, m)) return 0;
            } catch (KitException e) {
                error(stage, e.status, e.getMessage());
            } catch (Endpoint.TimedOut e) {
                error(stage, KitException.E_TIMEOUT, e.getMessage());
            } catch (IOException e) {
                error(stage, KitException.E_SYSTEM, e.toString());
            } catch (RuntimeException e) {
                error(stage, KitException.E_INTERNAL, e.toString());
            }
        }
    }

    void error(String stage, int status, String text) throws IOException {
        Map<String, Object> m = message("error");
        m.put("stage", stage.length() > 64 ? stage.substring(0, 64) : stage);
        m.put("status", (long) status);
        m.put("message", text == null ? "" : text);
        channel.send(m);
    }

    private static String clip(String s) {
        return s.length() > 32 ? s.substring(0, 32) : s;
    }

    private boolean dispatch(String kind, Map<String, Object> m) throws IOException, KitException, Endpoint.TimedOut {
        if (kind.equals("welcome")) {
            String protocol = Channel.text(m, "protocol", null);
            if (!VERSIONS.contains(protocol))
                throw KitException.protocol("the orchestrator picked worker protocol '" + clip(protocol)
                        + "', which this worker did not offer");
            welcomed = true;
        } else if (!welcomed) {
            throw KitException.protocol("a '" + clip(kind) + "' message before the 'welcome'");
        } else if (kind.equals("setup")) {
            setup(m);
        } else if (kind.equals("connect")) {
            connect(m);
        } else if (kind.equals("run")) {
            new Run(this, m).run();
        } else if (kind.equals("sender_done")) {
            // arrived after the receive loop ended on its own
        } else if (kind.equals("close")) {
            for (Endpoint ep : endpoints) ep.close();
            endpoints.clear();
            channel.send(message("closed"));
            return true;
        } else {
            throw KitException.protocol("a worker takes no '" + clip(kind) + "' message");
        }
        return false;
    }

    /**
     * Protocol 1.1's binding_key in bytes: a connector of socket.tcp or udp.inet presents it
     * (docs/worker-protocol.md, "Binding"); this kit binds no creator.
     */
    static byte[] bindingKeyOf(String hex, String transport, String role) throws KitException {
        if (hex.isEmpty()) return new byte[0];
        if (hex.length() < 32 || hex.length() > 128 || hex.length() % 2 != 0 || !hex.matches("[0-9a-fA-F]+"))
            throw KitException.protocol("setup message field 'binding_key' must be 32 to 128 hex digits");
        if (!(transport.equals("socket.tcp") || transport.equals("udp.inet")) || role.equals(Transports.CREATOR))
            throw new KitException(KitException.E_UNSUPPORTED, "this kit binds only a connector of socket.tcp or "
                    + "udp.inet to its peer, not a " + role + " of " + clip(transport));
        byte[] key = new byte[hex.length() / 2];
        for (int i = 0; i < key.length; i++) key[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return key;
    }

    private void setup(Map<String, Object> m) throws IOException, KitException {
        String transport = Channel.text(m, "transport", null);
        String role = Channel.text(m, "role", null);
        if (!role.equals(Transports.CREATOR) && !role.equals(Transports.CONNECTOR))
            throw KitException.protocol("setup message field 'role' has the unknown value '" + clip(role) + "'");
        List<Object> specs = Channel.list(m, "endpoints");
        Map<String, String> options = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : Channel.object(m, "options", false).entrySet()) {
            if (!(e.getValue() instanceof String))
                throw KitException.protocol("setup message field 'options' entry '" + clip(e.getKey()) + "' is not text");
            options.put(e.getKey(), (String) e.getValue());
        }
        String runtimeDir = Channel.text(m, "runtime_dir", "");
        long maxMessage = Channel.integer(m, "max_message_size", 0L);
        byte[] bindingKey = bindingKeyOf(Channel.text(m, "binding_key", ""), transport, role);
        if (endpoints.isEmpty()) rssBeforeKib = Usage.maxRssKib();
        List<Object> addresses = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            Object item = specs.get(i);
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = item instanceof Map ? (Map<String, Object>) item : null;
            Object direction = spec == null ? null : spec.get("direction");
            if (!Transports.SEND.equals(direction) && !Transports.RECV.equals(direction) && !Transports.BOTH.equals(direction))
                throw KitException.protocol("setup message field 'endpoints'[" + i + "] field 'direction' is missing or unknown");
            Object address = spec.getOrDefault("address", "");
            if (!(address instanceof String))
                throw KitException.protocol("setup message field 'endpoints'[" + i + "] field 'address' is not text");
            Transports.Spec s = new Transports.Spec();
            s.transport = transport;
            s.role = role;
            s.direction = (String) direction;
            s.address = (String) address;
            s.options = options;
            s.runtimeDir = runtimeDir;
            s.maxMessage = maxMessage;
            s.bindingKey = bindingKey;
            Endpoint ep = Transports.open(s);
            endpoints.add(ep);
            addresses.add(s.creator() ? ep.export() : s.address);
        }
        Map<String, Object> opened = message("opened");
        opened.put("addresses", addresses);
        channel.send(opened);
    }

    private void connect(Map<String, Object> m) throws IOException, KitException, Endpoint.TimedOut {
        long timeoutNs = Channel.integer(m, "timeout_ns", null);
        DataPlane.Histogram each = new DataPlane.Histogram();
        long start = System.nanoTime();
        for (Endpoint ep : endpoints) {
            long before = System.nanoTime();
            ep.connect(timeoutNs);
            each.record(System.nanoTime() - before);
        }
        long total = System.nanoTime() - start;
        Map<String, Object> settings = new LinkedHashMap<>();
        for (Endpoint ep : endpoints.subList(0, Math.min(2, endpoints.size())))
            for (Map.Entry<String, String> e : ep.settings().entrySet()) settings.putIfAbsent(e.getKey(), e.getValue());
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("connections", (long) endpoints.size());
        setup.put("total_ns", total);
        setup.put("histogram", each.toJson());
        setup.put("rss_before_kib", rssBeforeKib);
        Map<String, Object> connected = message("connected");
        connected.put("settings", settings);
        connected.put("setup", setup);
        channel.send(connected);
    }

    Channel channel() {
        return channel;
    }

    List<Endpoint> endpoints() {
        return endpoints;
    }
}
