// The plain C# loop the .NET kit is measured against (scripts/bench.sh): the calls a C# program
// on Mono makes, in two processes (this program started twice), nothing around them. A writer
// and a reader on a FIFO (FileStream, buffer size 1: Write + Flush, Read) or a Unix stream socket
// (Socket with SocketAsyncEventArgs: SendAsync / ReceiveAsync, waiting for each completion),
// SIZE-byte messages from one byte[] back to back for SECONDS; the reader times first to last
// message; unix-sync: the same socket with blocking Socket.Send / Socket.Receive (the mono:sync
// kit). lat: ping-pong over a Unix socket, the median round trip. Both run the loop for 0.1 s
// first (WARMUP, as bench.sh's --warmup 0.1 gives the kit).
//
//   mono PlainLoop.exe tput fifo|unix|unix-sync SIZE SECONDS   -> mb_per_sec=X
//   mono PlainLoop.exe lat unix|unix-sync SIZE SECONDS         -> p50_ns=X
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

sealed class UnixPath : EndPoint {
    readonly string path;
    public UnixPath(string path) { this.path = path; }
    public override AddressFamily AddressFamily { get { return AddressFamily.Unix; } }
    public override SocketAddress Serialize() {
        byte[] b = Encoding.UTF8.GetBytes(path);
        var sa = new SocketAddress(AddressFamily.Unix, 2 + b.Length + 1);
        for (int i = 0; i < b.Length; i++) sa[2 + i] = b[i];
        return sa;
    }
    public override EndPoint Create(SocketAddress sa) { return this; }
}

sealed class AsyncOp {
    readonly SocketAsyncEventArgs args = new SocketAsyncEventArgs();
    readonly SemaphoreSlim done = new SemaphoreSlim(0);
    public AsyncOp() { args.Completed += (s, e) => done.Release(); }
    public int Send(Socket s, byte[] b, int off, int n) {
        args.SetBuffer(b, off, n);
        if (s.SendAsync(args)) done.Wait();
        return args.SocketError == SocketError.Success ? args.BytesTransferred : -1;
    }
    public int Receive(Socket s, byte[] b, int off, int n) {
        args.SetBuffer(b, off, n);
        if (s.ReceiveAsync(args)) done.Wait();
        return args.SocketError == SocketError.Success ? args.BytesTransferred : -1;
    }
}

static class PlainLoop {
    [DllImport("libc")] static extern int mkfifo(string path, uint mode);
    static readonly long WarmupTicks = (long)(0.1 * Stopwatch.Frequency);

    static long Now() { return Stopwatch.GetTimestamp(); }
    static double Ns(long ticks) { return ticks * 1e9 / Stopwatch.Frequency; }

    interface IChannel {
        bool ReadOne(byte[] m);
        void Write(byte[] m);
        void Close();
    }

    sealed class Fifo : IChannel {
        readonly FileStream f;
        public Fifo(string path, FileAccess access) { f = new FileStream(path, FileMode.Open, access, FileShare.ReadWrite, 1); }
        public bool ReadOne(byte[] m) {
            for (int got = 0; got < m.Length;) {
                int n = f.Read(m, got, m.Length - got);
                if (n <= 0) return false;
                got += n;
            }
            return true;
        }
        public void Write(byte[] m) { f.Write(m, 0, m.Length); f.Flush(); }
        public void Close() { try { f.Dispose(); } catch (IOException) {} }
    }

    sealed class Unix : IChannel {
        readonly Socket s;
        readonly bool blocking;
        readonly AsyncOp sending = new AsyncOp(), receiving = new AsyncOp();
        public Unix(Socket s, bool blocking) { this.s = s; this.blocking = blocking; }
        public bool ReadOne(byte[] m) {
            for (int got = 0; got < m.Length;) {
                int n = blocking ? s.Receive(m, got, m.Length - got, SocketFlags.None) : receiving.Receive(s, m, got, m.Length - got);
                if (n <= 0) return false;
                got += n;
            }
            return true;
        }
        public void Write(byte[] m) {
            for (int done = 0; done < m.Length;) {
                int n = blocking ? s.Send(m, done, m.Length - done, SocketFlags.None) : sending.Send(s, m, done, m.Length - done);
                if (n < 0) throw new IOException("the peer is gone");
                done += n;
            }
        }
        public void Close() { s.Close(); }
    }

    static Socket UnixSocket() { return new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified); }

    static int Main(string[] a) {
        string mode = a[0], kind = a[1];
        int size = int.Parse(a[2]);
        double seconds = double.Parse(a[3], System.Globalization.CultureInfo.InvariantCulture);
        if (a.Length > 4) {
            Peer(mode, kind, size, seconds, a[4]);
            return 0;
        }
        string folder = Path.Combine(Path.GetTempPath(), "plainloop-cs-" + Guid.NewGuid().ToString("N").Substring(0, 8));
        Directory.CreateDirectory(folder);
        string path = Path.Combine(folder, "p");
        Socket listener = null;
        if (kind == "fifo") {
            mkfifo(path, Convert.ToUInt32("600", 8));
        } else {
            listener = UnixSocket();
            listener.Bind(new UnixPath(path));
            listener.Listen(1);
        }
        string self = typeof(PlainLoop).Assembly.Location;
        string childArgs = "\"" + self + "\" " + mode + " " + kind + " " + a[2] + " " + a[3] + " \"" + path + "\"";
        // PLAINLOOP_CHILD_CPU=N: the child (writer, ponger) on CPU N, as ipchost --affinity pins
        // the other side; the parent is pinned by whoever starts it (taskset).
        string childCpu = Environment.GetEnvironmentVariable("PLAINLOOP_CHILD_CPU");
        var child = Process.Start(string.IsNullOrEmpty(childCpu)
            ? new ProcessStartInfo("mono", childArgs) { UseShellExecute = false }
            : new ProcessStartInfo("taskset", "-c " + childCpu + " mono " + childArgs) { UseShellExecute = false });
        var m = new byte[size];
        try {
            IChannel c = kind == "fifo" ? (IChannel)new Fifo(path, FileAccess.Read) : new Unix(listener.Accept(), kind == "unix-sync");
            if (mode == "lat") {
                var rtts = new List<long>(1 << 20);
                long warm = Now() + WarmupTicks;
                while (Now() < warm) { c.Write(m); c.ReadOne(m); }
                long end = Now() + (long)(seconds * Stopwatch.Frequency);
                while (true) {
                    long t0 = Now();
                    c.Write(m);
                    c.ReadOne(m);
                    long t1 = Now();
                    rtts.Add(t1 - t0);
                    if (t1 >= end) break;
                }
                c.Close();
                rtts.Sort();
                Console.WriteLine("p50_ns=" + (long)Ns(rtts[rtts.Count / 2]));
            } else {
                long warm = Now() + WarmupTicks;
                while (Now() < warm) c.ReadOne(m);
                long count = 0, first = 0, last = 0;
                while (c.ReadOne(m)) {
                    last = Now();
                    if (count++ == 0) first = last;
                }
                Console.WriteLine("mb_per_sec=" + ((count - 1) * (double)size / (Ns(last - first) / 1e9) / 1e6).ToString("F3", System.Globalization.CultureInfo.InvariantCulture));
            }
        } finally {
            child.WaitForExit();
            File.Delete(path);
            Directory.Delete(folder);
        }
        return 0;
    }

    // The writer (throughput) or the ponger (latency).
    static void Peer(string mode, string kind, int size, double seconds, string path) {
        var m = new byte[size];
        IChannel c;
        if (kind == "fifo") {
            c = new Fifo(path, FileAccess.Write);
        } else {
            Socket s = UnixSocket();
            s.Connect(new UnixPath(path));
            c = new Unix(s, kind == "unix-sync");
        }
        if (mode == "lat") {
            while (c.ReadOne(m)) c.Write(m);
            return;
        }
        long end = Now() + WarmupTicks + (long)(seconds * Stopwatch.Frequency);
        long n = 0;
        try {
            while (true) {
                c.Write(m);
                if ((++n & 15) == 0 && Now() >= end) break;
            }
        } catch (IOException) {
            // the reader is gone
        }
        c.Close();
    }
}
