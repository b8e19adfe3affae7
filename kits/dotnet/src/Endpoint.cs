using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;

namespace IpcBench.Kit {
/// <summary>
/// One end of one stream of a case; the loops call only these members. An adapter around your
/// own code derives from this class and is registered with Transports.Register.
/// </summary>
public abstract class Endpoint {
    /// <summary>True: a byte stream (a read may end inside a message); false: one message a receive.</summary>
    public virtual bool Stream {
        get { return true; }
    }

    /// <summary>True: nothing is lost (the receiver blocks and ends on the end marker).</summary>
    public virtual bool Reliable {
        get { return true; }
    }

    /// <summary>The calls behind Send and Recv, named in the result's path.</summary>
    public abstract string SendCall { get; }
    public abstract string RecvCall { get; }

    /// <summary>Creator: the address its connector is given.</summary>
    public abstract string Export();

    /// <summary>Both roles at once: accept / attach within timeoutNs (&lt; 0: no limit).</summary>
    public abstract void Connect(long timeoutNs);

    /// <summary>Sends count bytes of buf from offset, all of them (one message, or several on a stream).</summary>
    public abstract void Send(byte[] buf, int offset, int count);

    /// <summary>
    /// Reads into buf at offset, at most count bytes: on a stream some bytes (-1: the peer
    /// closed), else one message, returning its length. timeoutNs &lt; 0 waits for ever;
    /// TimedOut when it passed.
    /// </summary>
    public abstract int Recv(byte[] buf, int offset, int count, long timeoutNs);

    /// <summary>
    /// True when the API is asynchronous (--api apm, task, pipestream-apm, pipestream-task): the
    /// plain send and receive loops then await SendAsync / RecvAsync, each operation started
    /// where the one before completed, as a program of that API is written (AsyncLoops), and no
    /// thread blocks on each operation.
    /// </summary>
    public virtual bool Asynchronous {
        get { return false; }
    }

    /// <summary>True where the API's operations can be awaited by the loop itself (no async
    /// method between: see IOperation), SendOperation and ReceiveOperation starting them; the
    /// loops then await those instead of SendAsync / RecvAsync. A send may move fewer bytes.</summary>
    public virtual bool DirectOperations {
        get { return false; }
    }

    public virtual IOperation SendOperation(byte[] buf, int offset, int count) {
        throw new NotSupportedException("no direct operations");
    }

    public virtual IOperation ReceiveOperation(byte[] buf, int offset, int count) {
        throw new NotSupportedException("no direct operations");
    }

    /// <summary>What a send says when the peer closed the connection.</summary>
    public virtual string ClosedText {
        get { return "the peer closed the connection"; }
    }

    /// <summary>Asynchronous: sends all count bytes (Send's contract).</summary>
    public virtual System.Threading.Tasks.Task SendAsync(byte[] buf, int offset, int count) {
        throw new NotSupportedException("a synchronous endpoint");
    }

    /// <summary>Asynchronous: some bytes of a stream, -1 when the peer closed (Recv's contract, no timeout).</summary>
    public virtual System.Threading.Tasks.Task<int> RecvAsync(byte[] buf, int offset, int count) {
        throw new NotSupportedException("a synchronous endpoint");
    }

#if NET8_0_OR_GREATER
    /// <summary>Asynchronous and unreliable: one datagram, awaited (AsyncLoops.ReceiveDatagrams);
    /// OperationCanceledException when quiet is cancelled first.</summary>
    public virtual System.Threading.Tasks.ValueTask<int> RecvDatagramAsync(byte[] buf, int offset, int count,
                                                                          System.Threading.CancellationToken quiet) {
        throw new NotSupportedException("not an asynchronous datagram endpoint");
    }
#endif

    /// <summary>A message buffer of the loops: a plain array, or what the API's programs use
    /// (--api task on udp.inet: an array on the pinned object heap).</summary>
    public virtual byte[] NewBuffer(int size) {
        return new byte[size];
    }

    /// <summary>What the transport really set, as text (pipe_size, sndbuf, nodelay...).</summary>
    public virtual Dictionary<string, string> Settings() {
        return new Dictionary<string, string>();
    }

    public abstract void Close();
}

/// <summary>Everything setup gives one endpoint.</summary>
public sealed class Spec {
    public string Transport, Role, Direction, Address, RuntimeDir;
    public Dictionary<string, string> Options;
    public long MaxMessage;
    /// <summary>Protocol 1.1: what a connector of socket.tcp or udp.inet presents first.</summary>
    public byte[] BindingKey = new byte[0];

    public bool Creator {
        get { return Role == Transports.CREATOR; }
    }

    public string Option(string key) {
        string v;
        return Options.TryGetValue(key, out v) ? v : "";
    }
}

/// <summary>The transports this kit implements, by id, and what they share.</summary>
public static class Transports {
    public const string SEND = "send", RECV = "recv", BOTH = "both", CREATOR = "creator", CONNECTOR = "connector";
    static readonly SortedDictionary<string, Func<Spec, Endpoint>> factories =
        new SortedDictionary<string, Func<Spec, Endpoint>>(StringComparer.Ordinal);

    /// <summary>
    /// The kit's APIs (--api; kits/README.md, "C#"): by default ("socket") System.Net.Sockets
    /// with SocketAsyncEventArgs, FileStream on FIFOs, the queues through libc; "sync", "apm"
    /// and "task" the stream sockets by those calls; "pipestream", "pipestream-apm" and
    /// "pipestream-task" System.IO.Pipes (a Unix stream socket on Linux: it meets socket.unix).
    /// "task" and "pipestream-task" need .NET (Memory&lt;byte&gt; and ValueTask).
    /// </summary>
    public static string[] Apis {
        get {
#if NETCOREAPP
            return new[] { "socket", "sync", "apm", "task", "pipestream", "pipestream-apm", "pipestream-task" };
#else
            return new[] { "socket", "sync", "apm", "pipestream", "pipestream-apm" };
#endif
        }
    }

    public static void Use(string api) {
        factories.Clear();
        if (api.StartsWith("pipestream")) {
            IoStyle pipeStyle = api == "pipestream-apm" ? IoStyle.Apm : api == "pipestream-task" ? IoStyle.Task : IoStyle.Sync;
            Register("socket.unix", s => new PipeStreamEndpoint(s, pipeStyle));
            return;
        }
        if (api != "socket") {
            IoStyle style = api == "apm" ? IoStyle.Apm : api == "task" ? IoStyle.Task : IoStyle.Sync;
            Register("socket.tcp", s => new SocketEndpoint(s, style));
            Register("socket.unix", s => new SocketEndpoint(s, style));
#if NET8_0_OR_GREATER
            if (style == IoStyle.Task) Register("udp.inet", s => new UdpEndpoint(s, style));
#endif
            return;
        }
        Register("pipe.fifo", s => new FifoEndpoint(s));
        Register("socket.tcp", s => new SocketEndpoint(s, IoStyle.Saea));
        Register("socket.unix", s => new SocketEndpoint(s, IoStyle.Saea));
        Register("udp.inet", s => new UdpEndpoint(s, IoStyle.Sync));
        Register("mq.sysv", s => new SysvQueueEndpoint(s));
        Register("mq.posix", s => new PosixQueueEndpoint(s));
    }

    public static void Register(string id, Func<Spec, Endpoint> factory) {
        factories[id] = factory;
    }

    public static Endpoint Open(Spec spec) {
        Func<Spec, Endpoint> f;
        if (!factories.TryGetValue(spec.Transport, out f))
            throw new KitException(KitException.E_UNSUPPORTED, "this kit does not implement " + spec.Transport +
                                   "; it has " + string.Join(", ", factories.Keys));
        return f(spec);
    }

    /// <summary>Options this kit reads (known) or accepts only at their default (fixed).</summary>
    public static void CheckOptions(Spec spec, string[] known, Dictionary<string, string> fix) {
        foreach (var e in spec.Options) {
            string value;
            if (fix != null && fix.TryGetValue(e.Key, out value)) {
                if (e.Value.Length > 0 && e.Value != value)
                    throw new KitException(KitException.E_UNSUPPORTED, "this kit runs " + spec.Transport + " with " +
                                           e.Key + "=" + value + " only, not " + e.Value);
            } else if (!known.Contains(e.Key)) {
                var all = known.Concat(fix == null ? new string[0] : fix.Keys.ToArray()).OrderBy(k => k, StringComparer.Ordinal);
                throw new KitException(KitException.E_UNKNOWN_OPTION, "unknown option '" + e.Key + "' for " +
                                       spec.Transport + "; known: " + string.Join(", ", all));
            }
        }
    }

    public static int ParseBytes(string key, string value) {
        string text = value.Trim().ToUpperInvariant();
        long scale = 1;
        if (text.Length > 0 && "KMG".IndexOf(text[text.Length - 1]) >= 0) {
            scale = 1L << (10 * (1 + "KMG".IndexOf(text[text.Length - 1])));
            text = text.Substring(0, text.Length - 1);
        }
        long n = -1;
        if (text.Length > 0 && text.Length < 12 && text.All(char.IsDigit)) n = long.Parse(text) * scale;
        if (n <= 0 || n > (1L << 30))
            throw new KitException(KitException.E_BAD_OPTION, "option " + key + "=" + value +
                                   ": expected a byte count from 1 to 1073741824, for example 1M");
        return (int)n;
    }

    static readonly Regex Ipv4 = new Regex("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$");

    /// <summary>HOST:PORT with a numeric IPv4 host, or [IPV6]:PORT.</summary>
    public static IPEndPoint ParseInet(string text, string what) {
        try {
            string host, port;
            if (text.StartsWith("[")) {
                int close = text.IndexOf("]:", StringComparison.Ordinal);
                host = text.Substring(1, close - 1);
                port = text.Substring(close + 2);
                if (!host.Contains(":")) throw new FormatException();
            } else {
                int colon = text.LastIndexOf(':');
                host = text.Substring(0, colon);
                port = text.Substring(colon + 1);
                if (!Ipv4.IsMatch(host)) throw new FormatException();
            }
            int p = int.Parse(port);
            if (p < 0 || p > 65535) throw new FormatException();
            return new IPEndPoint(IPAddress.Parse(host), p); // numeric: no lookup
        } catch (Exception e) when (e is FormatException || e is ArgumentException || e is OverflowException) {
            throw new KitException(KitException.E_BAD_ADDRESS, what + " '" + text +
                                   "': expected HOST:PORT with a numeric host, e.g. 127.0.0.1:0 or [::1]:0");
        }
    }

    public static string FormatInet(IPEndPoint a) {
        if (a.AddressFamily == AddressFamily.InterNetworkV6) {
            string h = a.Address.Equals(IPAddress.IPv6Any) ? "::1" : a.Address.ToString();
            int zone = h.IndexOf('%');
            if (zone >= 0) h = h.Substring(0, zone);
            return "[" + h + "]:" + a.Port;
        }
        return (a.Address.Equals(IPAddress.Any) ? "127.0.0.1" : a.Address.ToString()) + ":" + a.Port;
    }

    public static long DeadlineOf(long timeoutNs) {
        return timeoutNs < 0 ? long.MaxValue : Libc.Now() + timeoutNs;
    }

    /// <summary>ns left before the deadline (0: passed), -1 for no deadline.</summary>
    public static long LeftOf(long deadline) {
        return deadline == long.MaxValue ? -1 : Math.Max(0, deadline - Libc.Now());
    }

    public static int Millis(long leftNs) {
        return leftNs < 0 ? -1 : (int)Math.Min(int.MaxValue, Math.Max(1, leftNs / 1000000));
    }
}

/// <summary>A folder of our own (0700) in the run folder the host gave: names in it are ours.</summary>
public sealed class PrivateFolder {
    readonly string path;
    int count;

    public PrivateFolder(string runtimeDir) {
        if (string.IsNullOrEmpty(runtimeDir))
            throw new KitException(KitException.E_BAD_ADDRESS, "the setup gave no runtime_dir to create names in");
        for (int attempt = 0;; attempt++) {
            string p = Path.Combine(runtimeDir, "dotnet-" + Guid.NewGuid().ToString("N").Substring(0, 12));
            // mkdir through Directory.CreateDirectory would take the umask's mode: make it, then 0700,
            // before any name is created in it (nobody else can write in runtime_dir, 0700 itself).
            if (Directory.Exists(p) && attempt < 8) continue;
            Directory.CreateDirectory(p);
            if (Libc.chmod(p, Convert.ToUInt32("700", 8)) != 0) throw Libc.Failure("chmod " + p, Libc.Errno());
            path = p;
            return;
        }
    }

    public string Name(string prefix) {
        count++;
        return Path.Combine(path, prefix + count);
    }

    public void Remove() {
        try {
            Directory.Delete(path);
        } catch (IOException) {
            // not empty or gone: ipchost removes the run folder after the case
        }
    }
}
}
