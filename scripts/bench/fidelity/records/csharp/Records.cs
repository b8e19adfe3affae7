// A C# writer and reader of fixed-size records on each transport and API the C# kits offer,
// written the way .NET's documentation shows each. Shares no code with kits/dotnet.
//   default   pipe.fifo: FileStream Read / Write; socket.tcp / socket.unix: Socket with
//             SocketAsyncEventArgs, ReceiveAsync / SendAsync and the Completed event, going on
//             synchronously while an operation returns false ("SocketAsyncEventArgs Class");
//             udp.inet: a connected Socket (Connect: the writer's address, the reader's first
//             datagram's sender), Send / Receive; mq.sysv / mq.posix: msgsnd / msgrcv and
//             mq_send / mq_receive through P/Invoke (DllImport "libc")
//   sync      Socket.Send / Socket.Receive
//   apm       Socket.BeginSend / BeginReceive, each started from the callback of the one before,
//             one that CompletedSynchronously by the loop that began it ("Asynchronous
//             Programming Model", "Blocking application execution by ending an async operation")
//   task      await Socket.SendAsync(ReadOnlyMemory) / ReceiveAsync(Memory) (.NET only)
//   pipestream, pipestream-apm, pipestream-task: NamedPipeServerStream / NamedPipeClientStream
//             with PipeOptions.Asynchronous, and Write / Read, BeginWrite / BeginRead, or await
//             WriteAsync / ReadAsync on Memory (.NET only) ("System.IO.Pipes"); on Linux a Unix
//             stream socket at the pipe's path
//   Records read TRANSPORT PATH SIZE API WARMUP   makes the endpoint, writes PATH.ready
//   Records write TRANSPORT ENDPOINT SIZE API SECONDS
// Each read takes what is left of one record. The reader prints "mb_per_sec=..." over the
// records from WARMUP seconds after the first to the end (EOF on a stream, an empty message on
// a datagram or queue).
using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.IO.Pipes;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

sealed class Meter {
    readonly int size;
    readonly double warmup;
    readonly Stopwatch clock = new Stopwatch();
    double start = -1;
    long n, startN;

    public Meter(int size, double warmup) {
        this.size = size;
        this.warmup = warmup;
    }

    public void Got() {
        if (++n == 1) clock.Start();
        else if (start < 0 && (n & 15) == 0 && clock.Elapsed.TotalSeconds >= warmup) {
            start = clock.Elapsed.TotalSeconds;
            startN = n;
        }
    }

    public void Report() {
        if (start < 0) throw new InvalidOperationException("the run ended within its warm-up (" + n + " records)");
        double s = clock.Elapsed.TotalSeconds - start;
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "mb_per_sec={0:F1} msgs_per_sec={1:F0} seconds={2:F3}",
                                        (n - startN) * (double)size / s / 1e6, (n - startN) / s, s));
    }
}

static unsafe class Libc {
    [DllImport("libc", SetLastError = true)] public static extern int msgget(int key, int flags);
    [DllImport("libc", SetLastError = true)] public static extern int msgctl(int q, int cmd, IntPtr buf);
    [DllImport("libc", SetLastError = true)] public static extern int msgsnd(int q, byte* m, UIntPtr size, int flags);
    [DllImport("libc", SetLastError = true)] public static extern IntPtr msgrcv(int q, byte* m, UIntPtr size, long type, int flags);
    [DllImport("libc", SetLastError = true)] public static extern int mq_open(string name, int flags, uint mode, long* attr);
    [DllImport("libc", SetLastError = true)] public static extern int mq_send(int q, byte* m, UIntPtr len, uint prio);
    [DllImport("libc", SetLastError = true)] public static extern IntPtr mq_receive(int q, byte* m, UIntPtr len, IntPtr prio);
    [DllImport("libc", SetLastError = true)] public static extern int mq_unlink(string name);
}

static class Records {
    static bool Due(long i, Stopwatch clock, double until) {
        return (i & 15) == 0 && clock.Elapsed.TotalSeconds >= until;
    }

    static void Ready(string path, string endpoint) {
        File.WriteAllText(path + ".ready.tmp", endpoint);
        File.Move(path + ".ready.tmp", path + ".ready");
    }

    static void Check(bool ok, string what) {
        if (!ok) throw new IOException(what + ": errno " + Marshal.GetLastWin32Error());
    }

    // ---- streams read a record at a time: the reads of one record, then Got ----
    static void ReadStream(Func<byte[], int, int, int> read, int size, Meter m) {
        var record = new byte[size];
        while (true) {
            for (int got = 0; got < size;) {
                int n = read(record, got, size - got);
                if (n == 0) return;
                got += n;
            }
            m.Got();
        }
    }

    static void WriteStream(Action<byte[]> write, int size, double seconds) {
        var record = new byte[size];
        var clock = Stopwatch.StartNew();
        for (long i = 0; !Due(i, clock, seconds); i++) write(record);
    }

    // ---- SocketAsyncEventArgs: Completed handles a pending operation, the loop the others ----
    sealed class EventLoop {
        readonly Socket socket;
        readonly SocketAsyncEventArgs e = new SocketAsyncEventArgs();
        readonly ManualResetEventSlim done = new ManualResetEventSlim();
        readonly bool receiving;
        readonly Meter m;
        readonly Stopwatch clock = new Stopwatch();
        readonly double seconds;
        readonly int size;
        int got;
        long i;

        public EventLoop(Socket socket, int size, bool receiving, Meter m, double seconds) {
            this.socket = socket;
            this.size = size;
            this.receiving = receiving;
            this.m = m;
            this.seconds = seconds;
            e.SetBuffer(new byte[size], 0, size);
            e.Completed += (s, args) => { if (Process()) Run(); };
        }

        public void RunToEnd() {
            clock.Start();
            Run();
            done.Wait();
        }

        void Run() {
            while (!(receiving ? socket.ReceiveAsync(e) : socket.SendAsync(e)))
                if (!Process()) return;
        }

        // false: the run is over.
        bool Process() {
            if (e.SocketError != SocketError.Success) throw new SocketException((int)e.SocketError);
            if (receiving) {
                if (e.BytesTransferred == 0) return Finish();
                got += e.BytesTransferred;
                if (got == size) {
                    got = 0;
                    m.Got();
                }
                e.SetBuffer(got, size - got);
                return true;
            }
            got += e.BytesTransferred;
            if (got < size) {
                e.SetBuffer(got, size - got);
                return true;
            }
            got = 0;
            e.SetBuffer(0, size);
            return !Due(++i, clock, seconds) || Finish();
        }

        bool Finish() {
            done.Set();
            return false;
        }
    }

    // ---- APM: each Begin* started from the callback of the one before; one that completed
    // synchronously is handled by the loop that began it, not its callback, as the APM's
    // documentation asks (IAsyncResult.CompletedSynchronously), so the stack does not grow ----
    sealed class ApmLoop {
        readonly Func<byte[], int, int, AsyncCallback, IAsyncResult> begin;
        readonly Func<IAsyncResult, int> end;
        readonly ManualResetEventSlim done = new ManualResetEventSlim();
        readonly byte[] record;
        readonly Meter m;  // null: writing
        readonly Stopwatch clock = new Stopwatch();
        readonly double seconds;
        int got;
        long i;

        public ApmLoop(Func<byte[], int, int, AsyncCallback, IAsyncResult> begin, Func<IAsyncResult, int> end, int size,
                       Meter m, double seconds) {
            this.begin = begin;
            this.end = end;
            this.record = new byte[size];
            this.m = m;
            this.seconds = seconds;
        }

        public void RunToEnd() {
            clock.Start();
            Loop();
            done.Wait();
        }

        void Loop() {
            while (true) {
                var ar = begin(record, got, record.Length - got, OnDone);
                if (!ar.CompletedSynchronously || !Handle(ar)) return;
            }
        }

        void OnDone(IAsyncResult ar) {
            if (!ar.CompletedSynchronously && Handle(ar)) Loop();
        }

        // false: the run is over.
        bool Handle(IAsyncResult ar) {
            int n = end(ar);
            if (m != null) {
                if (n == 0) {
                    done.Set();
                    return false;
                }
                if ((got += n) == record.Length) {
                    got = 0;
                    m.Got();
                }
                return true;
            }
            if (!Due(++i, clock, seconds)) return true;
            done.Set();
            return false;
        }
    }

#if NETCOREAPP
    // ---- awaited: ReceiveAsync / SendAsync on Memory, ReadAsync / WriteAsync on a PipeStream ----
    static async Task ReadAwaited(Func<Memory<byte>, ValueTask<int>> read, int size, Meter m) {
        var record = new byte[size];
        while (true) {
            for (int got = 0; got < size;) {
                int n = await read(record.AsMemory(got, size - got));
                if (n == 0) return;
                got += n;
            }
            m.Got();
        }
    }

    static async Task WriteAwaited(Func<ReadOnlyMemory<byte>, ValueTask> write, int size, double seconds) {
        var record = new byte[size];
        var clock = Stopwatch.StartNew();
        for (long i = 0; !Due(i, clock, seconds); i++) await write(record);
    }
#endif

    static Socket Listen(string transport, string path, out string endpoint) {
        Socket server;
        if (transport == "socket.unix") {
            server = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
            server.Bind(new UnixDomainSocketEndPoint(path));
            endpoint = path;
        } else {
            server = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            server.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            endpoint = "127.0.0.1:" + ((IPEndPoint)server.LocalEndPoint).Port;
        }
        server.Listen(1);
        return server;
    }

    static Socket Connect(string transport, string endpoint) {
        if (transport == "socket.unix") {
            var s = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
            s.Connect(new UnixDomainSocketEndPoint(endpoint));
            return s;
        }
        var t = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        t.Connect(new IPEndPoint(IPAddress.Loopback, int.Parse(endpoint.Substring(endpoint.LastIndexOf(':') + 1))));
        return t;
    }

    static void ReadSocket(Socket s, string api, int size, Meter m) {
        switch (api) {
            case "sync": ReadStream((b, o, n) => s.Receive(b, o, n, SocketFlags.None), size, m); break;
            case "apm":
                new ApmLoop((b, o, n, cb) => s.BeginReceive(b, o, n, SocketFlags.None, cb, null), s.EndReceive, size, m, 0).RunToEnd();
                break;
#if NETCOREAPP
            case "task": ReadAwaited(b => s.ReceiveAsync(b, SocketFlags.None), size, m).GetAwaiter().GetResult(); break;
#endif
            default: new EventLoop(s, size, true, m, 0).RunToEnd(); break;
        }
    }

    static void WriteSocket(Socket s, string api, int size, double seconds) {
        switch (api) {
            case "sync": WriteStream(b => s.Send(b), size, seconds); break;
            case "apm":
                new ApmLoop((b, o, n, cb) => s.BeginSend(b, o, n, SocketFlags.None, cb, null), s.EndSend, size, null, seconds).RunToEnd();
                break;
#if NETCOREAPP
            case "task": WriteAwaited(async b => { await s.SendAsync(b, SocketFlags.None); }, size, seconds).GetAwaiter().GetResult(); break;
#endif
            default: new EventLoop(s, size, false, null, seconds).RunToEnd(); break;
        }
    }

    static void ReadPipe(PipeStream p, string api, int size, Meter m) {
        switch (api) {
            case "pipestream-apm": new ApmLoop((b, o, n, cb) => p.BeginRead(b, o, n, cb, null), p.EndRead, size, m, 0).RunToEnd(); break;
#if NETCOREAPP
            case "pipestream-task": ReadAwaited(b => p.ReadAsync(b), size, m).GetAwaiter().GetResult(); break;
#endif
            default: ReadStream(p.Read, size, m); break;
        }
    }

    static void WritePipe(PipeStream p, string api, int size, double seconds) {
        switch (api) {
            case "pipestream-apm":
                new ApmLoop((b, o, n, cb) => p.BeginWrite(b, o, n, cb, null), ar => { p.EndWrite(ar); return 0; }, size, null, seconds).RunToEnd();
                break;
#if NETCOREAPP
            case "pipestream-task": WriteAwaited(b => p.WriteAsync(b), size, seconds).GetAwaiter().GetResult(); break;
#endif
            default: WriteStream(b => p.Write(b, 0, b.Length), size, seconds); break;
        }
    }

    // ---- queues through P/Invoke: System V (an 8-byte type, then the record) and POSIX ----
    const int O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 64, O_EXCL = 128, IPC_CREAT = 512, IPC_RMID = 0;

    static unsafe void ReadQueue(string transport, string path, int size, Meter m) {
        bool sysv = transport == "mq.sysv";
        string name = "/records-cs-" + Process.GetCurrentProcess().Id;
        int q;
        if (sysv) {
            q = Libc.msgget(0, IPC_CREAT | Convert.ToInt32("600", 8));
        } else {
            long* attr = stackalloc long[8];
            for (int k = 0; k < 8; k++) attr[k] = 0;
            attr[1] = 10;  // mq_maxmsg: the default depth
            attr[2] = size;
            q = Libc.mq_open(name, O_RDONLY | O_CREAT | O_EXCL, Convert.ToUInt32("600", 8), attr);
        }
        Check(q >= 0, transport + " open");
        try {
            Ready(path, sysv ? q.ToString(CultureInfo.InvariantCulture) : name);
            var buf = new byte[8 + size];
            fixed (byte* b = buf) {
                while (true) {
                    long n = sysv ? (long)Libc.msgrcv(q, b, (UIntPtr)size, 0, 0) : (long)Libc.mq_receive(q, b, (UIntPtr)size, IntPtr.Zero);
                    if (n < 0 && Marshal.GetLastWin32Error() == 4) continue;  // EINTR
                    if (n < 0) Check(false, transport + " receive");
                    if (n == 0) return;
                    m.Got();
                }
            }
        } finally {
            if (sysv) Libc.msgctl(q, IPC_RMID, IntPtr.Zero);
            else Libc.mq_unlink(name);
        }
    }

    static unsafe void WriteQueue(string transport, string endpoint, int size, double seconds) {
        bool sysv = transport == "mq.sysv";
        int q = sysv ? int.Parse(endpoint, CultureInfo.InvariantCulture) : Libc.mq_open(endpoint, O_WRONLY, 0, null);
        Check(q >= 0, transport + " open");
        var buf = new byte[8 + size];
        buf[0] = 1;  // System V: mtype 1
        var clock = Stopwatch.StartNew();
        fixed (byte* b = buf) {
            for (long i = 0;; i++) {
                int len = Due(i, clock, seconds) ? 0 : size;  // an empty message ends the run
                int r;
                do r = sysv ? Libc.msgsnd(q, b, (UIntPtr)len, 0) : Libc.mq_send(q, b, (UIntPtr)len, 0);
                while (r < 0 && Marshal.GetLastWin32Error() == 4);
                if (r != 0) Check(false, transport + " send");
                if (len == 0) return;
            }
        }
    }

    static void Read(string transport, string path, string api, int size, Meter m) {
        if (transport == "pipe.fifo") {
            Check(Process.Start("mkfifo", "-m 600 " + path).WaitForExitCode() == 0, "mkfifo");
            Ready(path, path);
            using (var f = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1))
                ReadStream(f.Read, size, m);
        } else if (transport == "udp.inet") {
            var s = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            s.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            Ready(path, "127.0.0.1:" + ((IPEndPoint)s.LocalEndPoint).Port);
            var buf = new byte[65536];
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            // A datagram shorter than a record ends the run (one byte: Mono sends no empty one).
            if (s.ReceiveFrom(buf, ref from) < size) return;  // the first datagram names the writer
            m.Got();
            s.Connect(from);
            while (s.Receive(buf) >= size) m.Got();
        } else if (transport.StartsWith("mq.")) {
            ReadQueue(transport, path, size, m);
        } else if (api.StartsWith("pipestream")) {
            using (var server = new NamedPipeServerStream(path, PipeDirection.In, 1, PipeTransmissionMode.Byte, PipeOptions.Asynchronous)) {
                Ready(path, path);
                server.WaitForConnection();
                ReadPipe(server, api, size, m);
            }
        } else {
            string endpoint;
            using (var server = Listen(transport, path, out endpoint)) {
                Ready(path, endpoint);
                using (var s = server.Accept()) {
                    server.Close();
                    ReadSocket(s, api, size, m);
                }
            }
        }
    }

    static void Write(string transport, string endpoint, string api, int size, double seconds) {
        if (transport == "pipe.fifo") {
            using (var f = new FileStream(endpoint, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, 1))
                WriteStream(b => f.Write(b, 0, b.Length), size, seconds);
        } else if (transport == "udp.inet") {
            var s = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            s.Connect(new IPEndPoint(IPAddress.Loopback, int.Parse(endpoint.Substring(endpoint.LastIndexOf(':') + 1))));
            WriteStream(b => s.Send(b), size, seconds);
            try {
                for (int i = 0; i < 20; i++) {  // the end: 1-byte datagrams, spaced, in case the first are dropped
                    s.Send(new byte[1]);
                    Thread.Sleep(5);
                }
            } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
                // the reader got the end and closed its socket
            }
        } else if (transport.StartsWith("mq.")) {
            WriteQueue(transport, endpoint, size, seconds);
        } else if (api.StartsWith("pipestream")) {
            using (var client = new NamedPipeClientStream(".", endpoint, PipeDirection.Out, PipeOptions.Asynchronous)) {
                client.Connect(10000);
                WritePipe(client, api, size, seconds);
            }
        } else {
            using (var s = Connect(transport, endpoint)) {
                WriteSocket(s, api, size, seconds);
                s.Shutdown(SocketShutdown.Send);
            }
        }
    }

    static int WaitForExitCode(this Process p) {
        p.WaitForExit();
        return p.ExitCode;
    }

    static int Main(string[] args) {
        if (args.Length != 6 || (args[0] != "read" && args[0] != "write")) {
            Console.Error.WriteLine("usage: Records read TRANSPORT PATH SIZE API WARMUP | write TRANSPORT ENDPOINT SIZE API SECONDS");
            return 2;
        }
        string transport = args[1], where = args[2], api = args[4];
        int size = int.Parse(args[3], CultureInfo.InvariantCulture);
        double seconds = double.Parse(args[5], CultureInfo.InvariantCulture);
        if (args[0] == "write") {
            Write(transport, where, api, size, seconds);
            return 0;
        }
        var m = new Meter(size, seconds);
        Read(transport, where, api, size, m);
        if (transport == "pipe.fifo" || transport == "socket.unix") File.Delete(where);
        m.Report();
        return 0;
    }
}
