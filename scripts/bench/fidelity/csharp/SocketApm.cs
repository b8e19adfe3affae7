// S0's TCP program, as .NET's documentation for System.Net.Sockets shows an asynchronous
// client and server: Socket.BeginSend / BeginReceive, each started from the callback of the one
// before (learn.microsoft.com, "Asynchronous Client Socket Example", "Asynchronous Server Socket
// Example"), 512 KiB buffers on loopback. Shares no code with kits/dotnet.
//   SocketApm read PORT SECONDS SIZE [WARMUP]    listens on 127.0.0.1:PORT, reads until the writer closes
//   SocketApm write PORT SECONDS SIZE [WARMUP]   connects, sends SIZE-byte buffers for SECONDS
// The reader prints "mb_per_sec=... bytes=... seconds=..." from its first byte to the end; with
// WARMUP it starts counting WARMUP seconds after its first byte (the writer writes that much
// longer), so a runtime's start (JIT, thread pool growth) is left out as ipchost leaves it out.
using System;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Threading;

static class SocketApm {
    static readonly ManualResetEvent Done = new ManualResetEvent(false);
    static Socket socket;
    static byte[] buffer;
    static long bytes;
    static Stopwatch clock;
    static double seconds, warmup;
    static Stopwatch since;

    static void OnReceive(IAsyncResult ar) {
        int n = socket.EndReceive(ar);
        if (n == 0) {
            Done.Set();
            return;
        }
        if (since == null) since = Stopwatch.StartNew();
        if (clock == null && since.Elapsed.TotalSeconds >= warmup) clock = Stopwatch.StartNew();
        if (clock != null) bytes += n;
        socket.BeginReceive(buffer, 0, buffer.Length, SocketFlags.None, OnReceive, null);
    }

    static void OnSend(IAsyncResult ar) {
        socket.EndSend(ar);
        if (clock.Elapsed.TotalSeconds >= seconds + warmup) {
            Done.Set();
            return;
        }
        socket.BeginSend(buffer, 0, buffer.Length, SocketFlags.None, OnSend, null);
    }

    static int Main(string[] args) {
        if (args.Length != 4 && args.Length != 5) {
            Console.Error.WriteLine("usage: SocketApm read|write PORT SECONDS SIZE [WARMUP]");
            return 2;
        }
        var where = new IPEndPoint(IPAddress.Loopback, int.Parse(args[1]));
        seconds = double.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture);
        buffer = new byte[int.Parse(args[3])];
        warmup = args.Length == 5 ? double.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture) : 0;
        if (args[0] == "read") {
            var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            listener.Bind(where);
            listener.Listen(1);
            socket = listener.Accept();
            socket.BeginReceive(buffer, 0, buffer.Length, SocketFlags.None, OnReceive, null);
            Done.WaitOne();
            double s = clock == null ? 0 : clock.Elapsed.TotalSeconds;
            Console.WriteLine("mb_per_sec={0:F1} bytes={1} seconds={2:F3}", s > 0 ? bytes / s / 1e6 : 0, bytes, s);
        } else {
            socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            for (int i = 0;; i++) {
                try {
                    socket.Connect(where);
                    break;
                } catch (SocketException) when (i < 1000) {
                    Thread.Sleep(10);
                }
            }
            clock = Stopwatch.StartNew();
            socket.BeginSend(buffer, 0, buffer.Length, SocketFlags.None, OnSend, null);
            Done.WaitOne();
            socket.Shutdown(SocketShutdown.Send);
        }
        socket.Close();
        return 0;
    }
}
