// S1's shape: a .NET 8 UDP tool moving 65,507-byte datagrams (the IPv4 maximum) over loopback and
// printing MBps, Mbps and packets/s each second, written as its authors describe theirs and as
// .NET's documentation shows the allocation-free UDP path: buffers on the pinned object heap
// (GC.AllocateArray<byte>(n, pinned: true)), an async receive loop awaiting
// Socket.ReceiveFromAsync(Memory<byte>, SocketFlags, SocketAddress) (.NET 8) into one
// SocketAddress, and a sender awaiting Socket.SendToAsync(ReadOnlyMemory<byte>, SocketFlags,
// SocketAddress). Shares no code with kits/dotnet. .NET 8 or later only.
//   UdpPoh read PORT SECONDS SIZE [WARMUP]   binds 127.0.0.1:PORT, counts from WARMUP seconds after
//                                            the first datagram for SECONDS seconds
//   UdpPoh write PORT SECONDS SIZE [WARMUP]  sends SIZE-byte datagrams until the reader is gone
// The reader prints a line each second ("second MBps Mbps packets/s") and then
// "mb_per_sec=... packets_per_sec=...".
using System;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;

static class UdpPoh {
    static async Task Receive(int port, double seconds, int size, double warmup) {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, port));
        byte[] buffer = GC.AllocateArray<byte>(size, pinned: true);
        var from = new SocketAddress(AddressFamily.InterNetwork);
        await socket.ReceiveFromAsync(buffer.AsMemory(), SocketFlags.None, from); // the first
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < warmup) await socket.ReceiveFromAsync(buffer.AsMemory(), SocketFlags.None, from);
        clock.Restart();
        long bytes = 0, packets = 0, secondBytes = 0, secondPackets = 0;
        double nextSecond = 1;
        while (true) {
            int n = await socket.ReceiveFromAsync(buffer.AsMemory(), SocketFlags.None, from);
            bytes += n;
            packets++;
            secondBytes += n;
            secondPackets++;
            double now = clock.Elapsed.TotalSeconds;
            if (now >= nextSecond) {
                Console.WriteLine("{0} {1:F1} MBps {2:F1} Mbps {3} packets/s", (int)nextSecond, secondBytes / 1e6,
                                  secondBytes * 8 / 1e6, secondPackets);
                secondBytes = secondPackets = 0;
                nextSecond++;
            }
            if (now >= seconds) break;
        }
        double s = clock.Elapsed.TotalSeconds;
        socket.Close(); // the writer's next send is refused: it ends
        Console.WriteLine("mb_per_sec={0:F1} packets_per_sec={1:F0}", bytes / s / 1e6, packets / s);
    }

    static async Task Send(int port, double seconds, int size) {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        byte[] buffer = GC.AllocateArray<byte>(size, pinned: true);
        SocketAddress to = new IPEndPoint(IPAddress.Loopback, port).Serialize();
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds) { // or until the reader is gone
            try {
                await socket.SendToAsync(buffer.AsMemory(), SocketFlags.None, to);
            } catch (SocketException) {
                return;
            }
        }
    }

    static int Main(string[] args) {
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        if (args.Length < 4 || (args[0] != "read" && args[0] != "write")) {
            Console.Error.WriteLine("usage: UdpPoh read|write PORT SECONDS SIZE [WARMUP]");
            return 2;
        }
        int port = int.Parse(args[1]), size = int.Parse(args[3]);
        double seconds = double.Parse(args[2], inv), warmup = args.Length > 4 ? double.Parse(args[4], inv) : 0;
        if (args[0] == "read") Receive(port, seconds, size, warmup).GetAwaiter().GetResult();
        else Send(port, seconds + warmup + 30, size).GetAwaiter().GetResult();
        return 0;
    }
}
