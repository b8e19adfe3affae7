using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace IpcBench.Kit {
/// <summary>
/// One worker's session with the orchestrator (docs/worker-protocol.md, "A case, message by
/// message"): hello, welcome, setup, connect, run, close.
/// </summary>
sealed class Session {
    static readonly string[] Versions = ProtocolGenerated.Versions;
    public readonly Channel Channel;
    public readonly List<Endpoint> Endpoints = new List<Endpoint>();
    readonly string implementation;
    bool welcomed;
    long rssBeforeKib;

    public Session(Channel channel, string implementation) {
        Channel = channel;
        this.implementation = implementation;
    }

    /// <summary>"Mono 6.8.0.105": the runtime, never "a .NET" of unknown kind.</summary>
    public static string RuntimeName() {
        Type mono = Type.GetType("Mono.Runtime");
        if (mono == null)
            return System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription + " (CoreCLR)";
        var display = mono.GetMethod("GetDisplayName", BindingFlags.NonPublic | BindingFlags.Static);
        string text = display == null ? "" : (string)display.Invoke(null, null);
        string version = text.Split(' ')[0];
        return "Mono " + (version.Length > 0 ? version : Environment.Version.ToString());
    }

    public static Dictionary<string, object> Message(string type) {
        return new Dictionary<string, object> { { "type", type } };
    }

    /// <summary>The exit code: 0 after close, 1 when the orchestrator went away, 2 on garbage.</summary>
    public int Serve() {
        var hello = Message("hello");
        hello["versions"] = Versions.Cast<object>().ToList();
        hello["pid"] = (long)Libc.getpid();
        hello["implementation"] = implementation;
        hello["runtime"] = RuntimeName();
        Channel.Send(hello);
        while (true) {
            Dictionary<string, object> m;
            try {
                m = Channel.Receive(-1);
            } catch (ChannelClosed) {
                return 1;
            } catch (KitException e) {
                Error("control", e.Status, "control channel: " + e.Message);
                return 2;
            }
            string stage = Channel.Type(m);
            try {
                if (Dispatch(stage, m)) return 0;
            } catch (ChannelClosed) {
                return 1;
            } catch (KitException e) {
                Error(stage, e.Status, e.Message);
            } catch (TimedOut e) {
                Error(stage, KitException.E_TIMEOUT, e.Message);
            } catch (Exception e) when (e is IOException || e is SocketException) {
                Error(stage, KitException.E_SYSTEM, e.GetType().Name + ": " + e.Message);
            } catch (Exception e) {
                Error(stage, KitException.E_INTERNAL, e.ToString());
            }
        }
    }

    /// <summary>Closes (and so removes) every endpoint still open; a failing one does not stop the rest.</summary>
    public void CloseEndpoints() {
        foreach (Endpoint ep in Endpoints) {
            try {
                ep.Close();
            } catch (Exception) {
                // what could not be closed is left to the orchestrator's leftover sweep
            }
        }
        Endpoints.Clear();
    }

    void Error(string stage, int status, string text) {
        var m = Message("error");
        m["stage"] = stage.Length > 64 ? stage.Substring(0, 64) : stage;
        m["status"] = (long)status;
        m["message"] = text ?? "";
        Channel.Send(m);
    }

    static string Clip(string s) {
        return s.Length > 32 ? s.Substring(0, 32) : s;
    }

    bool Dispatch(string kind, Dictionary<string, object> m) {
        if (kind == "welcome") {
            string protocol = Channel.Text(m, "protocol", null);
            if (!Versions.Contains(protocol))
                throw KitException.Protocol("the orchestrator picked worker protocol '" + Clip(protocol) + "', which this worker did not offer");
            welcomed = true;
        } else if (!welcomed) {
            throw KitException.Protocol("a '" + Clip(kind) + "' message before the 'welcome'");
        } else if (kind == "setup") {
            Setup(m);
        } else if (kind == "connect") {
            Connect(m);
        } else if (kind == "run") {
            new Run(this, m).Execute();
        } else if (kind == "sender_done") {
            // arrived after the receive loop ended on its own
        } else if (kind == "close") {
            foreach (Endpoint ep in Endpoints) ep.Close();
            Endpoints.Clear();
            Channel.Send(Message("closed"));
            return true;
        } else {
            throw KitException.Protocol("a worker takes no '" + Clip(kind) + "' message");
        }
        return false;
    }

    /// <summary>Protocol 1.1's binding_key in bytes: a connector of socket.tcp or udp.inet presents
    /// it (docs/worker-protocol.md, "Binding"); this kit binds no creator.</summary>
    static byte[] BindingKeyOf(string hex, string transport, string role) {
        if (hex.Length == 0) return new byte[0];
        bool digits = hex.Length >= 32 && hex.Length <= 128 && hex.Length % 2 == 0 &&
                      hex.All(c => Uri.IsHexDigit(c));
        if (!digits) throw KitException.Protocol("setup message field 'binding_key' must be 32 to 128 hex digits");
        if ((transport != "socket.tcp" && transport != "udp.inet") || role == Transports.CREATOR)
            throw new KitException(KitException.E_UNSUPPORTED, "this kit binds only a connector of socket.tcp or " +
                                   "udp.inet to its peer, not a " + role + " of " + Clip(transport));
        var key = new byte[hex.Length / 2];
        for (int i = 0; i < key.Length; i++) key[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
        return key;
    }

    void Setup(Dictionary<string, object> m) {
        string transport = Channel.Text(m, "transport", null);
        string role = Channel.Text(m, "role", null);
        if (role != Transports.CREATOR && role != Transports.CONNECTOR)
            throw KitException.Protocol("setup message field 'role' has the unknown value '" + Clip(role) + "'");
        List<object> specs = Channel.List(m, "endpoints");
        var options = new Dictionary<string, string>();
        foreach (var e in Channel.Object(m, "options", false)) {
            if (!(e.Value is string)) throw KitException.Protocol("setup message field 'options' entry '" + Clip(e.Key) + "' is not text");
            options[e.Key] = (string)e.Value;
        }
        string runtimeDir = Channel.Text(m, "runtime_dir", "");
        long maxMessage = Channel.Integer(m, "max_message_size", 0L);
        byte[] bindingKey = BindingKeyOf(Channel.Text(m, "binding_key", ""), transport, role);
        if (Endpoints.Count == 0) rssBeforeKib = Usage.MaxRssKib();
        var addresses = new List<object>();
        for (int i = 0; i < specs.Count; i++) {
            var spec = specs[i] as Dictionary<string, object>;
            object direction = null, address = "";
            if (spec != null) spec.TryGetValue("direction", out direction);
            if (!(direction is string) || !new[] { Transports.SEND, Transports.RECV, Transports.BOTH }.Contains((string)direction))
                throw KitException.Protocol("setup message field 'endpoints'[" + i + "] field 'direction' is missing or unknown");
            if (spec.ContainsKey("address")) address = spec["address"];
            if (!(address is string)) throw KitException.Protocol("setup message field 'endpoints'[" + i + "] field 'address' is not text");
            var s = new Spec { Transport = transport, Role = role, Direction = (string)direction, Address = (string)address,
                               Options = options, RuntimeDir = runtimeDir, MaxMessage = maxMessage,
                               BindingKey = bindingKey };
            Endpoint ep = Transports.Open(s);
            Endpoints.Add(ep);
            addresses.Add(s.Creator ? ep.Export() : s.Address);
        }
        var opened = Message("opened");
        opened["addresses"] = addresses;
        Channel.Send(opened);
    }

    void Connect(Dictionary<string, object> m) {
        long timeoutNs = Channel.Integer(m, "timeout_ns", null);
        var each = new DataPlane.Histogram();
        long start = Libc.Now();
        foreach (Endpoint ep in Endpoints) {
            long before = Libc.Now();
            ep.Connect(timeoutNs);
            each.Record(Libc.Now() - before);
        }
        long total = Libc.Now() - start;
        var settings = new Dictionary<string, object>();
        foreach (Endpoint ep in Endpoints.Take(2))
            foreach (var e in ep.Settings())
                if (!settings.ContainsKey(e.Key)) settings[e.Key] = e.Value;
        var connected = Message("connected");
        connected["settings"] = settings;
        connected["setup"] = new Dictionary<string, object> { { "connections", (long)Endpoints.Count }, { "total_ns", total },
                                                              { "histogram", each.ToJson() }, { "rss_before_kib", rssBeforeKib } };
        Channel.Send(connected);
    }
}

/// <summary>
/// The .NET kit's worker: ipchost starts it (through the ipcbench-dotnet-worker script) for a
/// side run with --impl dotnet, mono or KIT:API (docs/worker-protocol.md).
/// </summary>
static class Worker {
    static string Usage {
        get {
            return "usage: ipcbench-dotnet-worker [--api " + string.Join("|", Transports.Apis) +
                   "] --control-socket FD (ipchost starts this worker: ipchost --impl dotnet ...; docs/worker-protocol.md)";
        }
    }

    /// <summary>
    /// Compiles every method of the kit while the session is set up: Mono compiles a method on its
    /// first call, and a receive loop that starts tens of milliseconds after its sender (a UDP
    /// receiver, whose datagrams do not wait) loses what that sender sent meanwhile. The class
    /// library's socket and stream paths the loops call are compiled by the endpoints' own
    /// connect, which makes the same calls.
    /// </summary>
    static void Prepare() {
        const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                 BindingFlags.Static | BindingFlags.DeclaredOnly;
        foreach (Type type in typeof(Worker).Assembly.GetTypes()) {
            if (type.IsGenericTypeDefinition) continue;
            foreach (MethodBase m in type.GetMethods(all).Cast<MethodBase>().Concat(type.GetConstructors(all))) {
                if (m.IsAbstract || m.ContainsGenericParameters || m.GetMethodBody() == null) continue;
                try {
                    RuntimeHelpers.PrepareMethod(m.MethodHandle);
                } catch (Exception) {
                    // a method the runtime will not compile ahead: it compiles on its first call
                }
            }
        }
    }

    static int Main(string[] args) {
        if (args.Length == 1 && args[0] == "--runtime-version") {
            Console.WriteLine(Session.RuntimeName());
            return 0;
        }
        string api = "socket";
        int at = 0;
        if (args.Length >= 2 && args[0] == "--api") {
            api = args[1];
            at = 2;
        }
        int fd;
        if (!Transports.Apis.Contains(api) || args.Length != at + 2 || args[at] != "--control-socket" ||
            !int.TryParse(args[at + 1], out fd) || fd < 0) {
            Console.Error.WriteLine(Usage);
            return 2;
        }
        if (!BitConverter.IsLittleEndian) {
            Console.Error.WriteLine("ipcbench-dotnet-worker: the data plane is little-endian; this kit does not swap bytes");
            return 2;
        }
        Libc.IgnoreSigpipe();
        Transports.Use(api);
        new System.Threading.Thread(Prepare) { IsBackground = true, Name = "prepare" }.Start();
        Channel channel;
        try {
            channel = new Channel(fd);
        } catch (KitException e) {
            Console.Error.WriteLine("ipcbench-dotnet-worker: --control-socket " + fd + ": " + e.Message + "; start it through ipchost");
            return 2;
        }
        string name = Environment.GetEnvironmentVariable("IPCBENCH_KIT_NAME");
        // It names itself as ipchost named it: KIT for the default API, KIT:API for another.
        if (string.IsNullOrEmpty(name)) name = "dotnet";
        var session = new Session(channel, api == "socket" ? name : name + ":" + api);
        int code = session.Serve();
        session.CloseEndpoints();  // after a garbage frame or a lost orchestrator: what it made goes
        Libc.Exit(code);
        return code;  // not reached
    }
}
}
