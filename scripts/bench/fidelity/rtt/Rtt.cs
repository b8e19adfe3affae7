// A C# request–response pair on TCP, written the two ways .NET's documentation shows a socket
// client and server (learn.microsoft.com, "Use Sockets to send and receive data over TCP").
// Shares no code with kits/dotnet. NoDelay set, as a request–response program sets it.
//   sync   Socket.Send of each request, Socket.Receive until its reply is whole: what
//          `--impl dotnet:sync` / `mono:sync` is compared with.
//   task   await Socket.SendAsync(ReadOnlyMemory<byte>) and await ReceiveAsync(Memory<byte>) in
//          an async method (.NET only): what `--impl dotnet:task` is compared with.
//   Rtt serve PORTFILE SIZE sync|task          echoes until EOF
//   Rtt ping PORT COUNT SIZE WARMUP sync|task  prints "p50_ns=... p99_ns=... trips=..."
using System;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;

static class Rtt {
    static bool ReceiveAll(Socket s, byte[] buf) {
        for (int got = 0; got < buf.Length;) {
            int n = s.Receive(buf, got, buf.Length - got, SocketFlags.None);
            if (n == 0) return false;
            got += n;
        }
        return true;
    }

#if NETCOREAPP
    static async Task<bool> ReceiveAllAsync(Socket s, byte[] buf) {
        for (int got = 0; got < buf.Length;) {
            int n = await s.ReceiveAsync(new Memory<byte>(buf, got, buf.Length - got), SocketFlags.None);
            if (n == 0) return false;
            got += n;
        }
        return true;
    }

    static async Task<bool> TripAsync(Socket s, byte[] request, byte[] reply) {
        await s.SendAsync(new ReadOnlyMemory<byte>(request), SocketFlags.None);
        return await ReceiveAllAsync(s, reply);
    }

    static async Task EchoAsync(Socket s, byte[] buf) {
        while (await ReceiveAllAsync(s, buf)) await s.SendAsync(new ReadOnlyMemory<byte>(buf), SocketFlags.None);
    }
#endif

    static void Trip(Socket s, byte[] request, byte[] reply) {
        s.Send(request);
        ReceiveAll(s, reply);
    }

#if NETCOREAPP
    /// <summary>The timed loop as an async program writes it: every trip awaited.</summary>
    static async Task<long[]> PingAsync(Socket s, int count, double warmup, byte[] request, byte[] reply) {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < warmup) await TripAsync(s, request, reply);
        var trips = new long[count];
        for (int i = 0; i < count; i++) {
            long start = clock.ElapsedTicks;
            await TripAsync(s, request, reply);
            trips[i] = clock.ElapsedTicks - start;
        }
        return trips;
    }
#endif

    static long[] Ping(Socket s, int count, double warmup, byte[] request, byte[] reply) {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < warmup) Trip(s, request, reply);
        var trips = new long[count];
        for (int i = 0; i < count; i++) {
            long start = clock.ElapsedTicks;
            Trip(s, request, reply);
            trips[i] = clock.ElapsedTicks - start;
        }
        return trips;
    }

    static int Main(string[] args) {
        bool task = args[args.Length - 1] == "task";
#if !NETCOREAPP
        if (task) {
            Console.Error.WriteLine("Rtt: task needs .NET (Memory<byte>, ValueTask)");
            return 2;
        }
#endif
        if (args[0] == "serve") {
            var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            listener.Listen(1);
            File.WriteAllText(args[1], ((IPEndPoint)listener.LocalEndPoint).Port.ToString());
            Socket conn = listener.Accept();
            conn.NoDelay = true;
            var buf = new byte[int.Parse(args[2])];
#if NETCOREAPP
            if (task) {
                EchoAsync(conn, buf).GetAwaiter().GetResult();
                return 0;
            }
#endif
            while (ReceiveAll(conn, buf)) conn.Send(buf);
            return 0;
        }
        int count = int.Parse(args[2]), size = int.Parse(args[3]);
        double warmup = double.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture);
        var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        s.Connect(new IPEndPoint(IPAddress.Loopback, int.Parse(args[1])));
        s.NoDelay = true;
        byte[] request = new byte[size], reply = new byte[size];
#if NETCOREAPP
        long[] trips = task ? PingAsync(s, count, warmup, request, reply).GetAwaiter().GetResult()
                            : Ping(s, count, warmup, request, reply);
#else
        long[] trips = Ping(s, count, warmup, request, reply);
#endif
        s.Close();
        Array.Sort(trips);
        double ns = 1e9 / Stopwatch.Frequency;
        Console.WriteLine("p50_ns={0} p99_ns={1} trips={2}", (long)(trips[count / 2] * ns), (long)(trips[count * 99 / 100] * ns), count);
        return 0;
    }
}
