using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace IpcBench.Kit {
/// <summary>
/// udp.inet as a .NET program uses it (the write-up's UDP tool): a connected datagram Socket,
/// Send and Receive, with Poll only when a deadline matters (the unreliable loops). The creator
/// binds; the connector sends the 13-byte hello "ipcb-udp-helo" every 50 ms until the creator,
/// which then talks only to it, answers "ipcb-udp-ack!". Duplex, unreliable.
/// With --api task (.NET 8 on): S1's receive path, the loops' buffers on the pinned object heap
/// (GC.AllocateArray(pinned: true)), Socket.ReceiveFromAsync(Memory&lt;byte&gt;, SocketFlags,
/// SocketAddress) into them (no EndPoint allocated a datagram) and SendAsync(ReadOnlyMemory).
/// A receive still pending when a loop's deadline passes stays pending for the next call.
/// </summary>
sealed class UdpEndpoint : Endpoint {
    static readonly byte[] Hello = Encoding.ASCII.GetBytes("ipcb-udp-helo");
    static readonly byte[] BoundHello = Encoding.ASCII.GetBytes("ipcb-udp-bind");  // + the key (1.1)
    readonly byte[] hello;
    static readonly byte[] Ack = Encoding.ASCII.GetBytes("ipcb-udp-ack!");
    const int UdpMaxIpv4 = 65507;
    readonly bool creator;
    readonly Socket socket;
    readonly IPEndPoint peer;
    int receiveTimeoutMs;
    readonly IoStyle style;

    public UdpEndpoint(Spec spec, IoStyle style) {
        this.style = style;
        Transports.CheckOptions(spec, new[] { "sndbuf", "rcvbuf", "bind" }, null);
        if (spec.MaxMessage > UdpMaxIpv4)
            throw new KitException(KitException.E_TOO_BIG, "udp.inet: a datagram of " + spec.MaxMessage + " B is over the " +
                                   UdpMaxIpv4 + " B an IPv4 UDP datagram can carry");
        creator = spec.Creator;
        hello = Hello;
        if (spec.BindingKey.Length > 0) {
            hello = new byte[BoundHello.Length + spec.BindingKey.Length];
            Buffer.BlockCopy(BoundHello, 0, hello, 0, BoundHello.Length);
            Buffer.BlockCopy(spec.BindingKey, 0, hello, BoundHello.Length, spec.BindingKey.Length);
        }
        string where = spec.Option("bind");
        if (where.Length == 0) where = spec.Address.Length == 0 ? "127.0.0.1:0" : spec.Address;
        IPEndPoint local = Transports.ParseInet(creator ? where : spec.Address, "udp.inet address");
        socket = new Socket(local.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        if (spec.Option("sndbuf").Length > 0) socket.SendBufferSize = Transports.ParseBytes("sndbuf", spec.Option("sndbuf"));
        if (spec.Option("rcvbuf").Length > 0) socket.ReceiveBufferSize = Transports.ParseBytes("rcvbuf", spec.Option("rcvbuf"));
        if (creator) socket.Bind(local);
        else peer = local;
    }

    public override bool Stream {
        get { return false; }
    }

    public override bool Reliable {
        get { return false; }
    }

    public override string SendCall {
        get { return style == IoStyle.Task ? "Socket.SendAsync(ReadOnlyMemory)" : "Socket.Send"; }
    }

    public override string RecvCall {
        get { return style == IoStyle.Task ? "Socket.ReceiveFromAsync(Memory, SocketAddress)" : "Socket.Receive"; }
    }

#if NET8_0_OR_GREATER
    public override byte[] NewBuffer(int size) {
        return style == IoStyle.Task ? GC.AllocateArray<byte>(size, pinned: true) : new byte[size];
    }

    System.Threading.Tasks.Task<int> pending;  // a receive a deadline left behind
    byte[] pendingBuf;
    int pendingOffset;
    SocketAddress from;

    /// <summary>One datagram by ReceiveFromAsync: at once when one is queued, else waited
    /// for until the deadline (then left pending for the next call).</summary>
    int ReceiveTask(byte[] buf, int offset, int count, long timeoutNs) {
        if (pending == null) {
            if (from == null) from = new SocketAddress(socket.AddressFamily);
            var now = socket.ReceiveFromAsync(new Memory<byte>(buf, offset, count), SocketFlags.None, from);
            if (now.IsCompletedSuccessfully) return now.Result;
            pending = now.AsTask();
            pendingBuf = buf;
            pendingOffset = offset;
        }
        int ms = timeoutNs < 0 ? -1 : (int)Math.Max(1, Math.Min(int.MaxValue, timeoutNs / 1000000));
        try {
            if (!pending.Wait(ms)) throw new TimedOut("recv");
        } catch (AggregateException e) when (e.InnerException is SocketException) {
            pending = null;
            throw e.InnerException;
        }
        int n = pending.Result;
        pending = null;
        if (pendingBuf != buf || pendingOffset != offset) Buffer.BlockCopy(pendingBuf, pendingOffset, buf, offset, Math.Min(n, count));
        return n;
    }
#endif

    public override string Export() {
        return Transports.FormatInet((IPEndPoint)socket.LocalEndPoint);
    }

    bool WaitReadable(long deadline) {
        long left = Transports.LeftOf(deadline);
        if (left == 0) return false;
        socket.Poll(left < 0 ? -1 : (int)Math.Min(int.MaxValue, Math.Max(1, left / 1000)), SelectMode.SelectRead);
        return true;
    }

    static bool Is(byte[] b, int offset, int n, byte[] word) {
        if (n != word.Length) return false;
        for (int i = 0; i < n; i++)
            if (b[offset + i] != word[i]) return false;
        return true;
    }

    public override void Connect(long timeoutNs) {
        long deadline = Transports.DeadlineOf(timeoutNs);
        var input = new byte[64];
        if (creator) {
            while (true) {
                if (socket.Available > 0) {
                    EndPoint from = new IPEndPoint(socket.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any, 0);
                    int n = socket.ReceiveFrom(input, ref from);
                    if (Is(input, 0, n, Hello)) {
                        socket.Connect(from);
                        socket.Send(Ack, 0, Ack.Length, SocketFlags.None);
                        return;
                    }
                    continue;
                }
                if (!WaitReadable(deadline)) throw new TimedOut("udp.inet: no hello from the peer");
            }
        }
        socket.Connect(peer);
        while (true) {
            try {
                socket.Send(hello, 0, hello.Length, SocketFlags.None);
            } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
                // nobody bound yet: try again
            }
            long step = Math.Min(deadline, Libc.Now() + 50000000L);
            while (WaitReadable(step)) {
                int n;
                try {
                    if (socket.Available == 0 && !socket.Poll(0, SelectMode.SelectRead)) continue;
                    n = socket.Receive(input, 0, input.Length, SocketFlags.None);
                } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
                    n = 0;
                }
                if (Is(input, 0, n, Ack)) return;
            }
            if (Transports.LeftOf(deadline) == 0) throw new TimedOut("udp.inet: the peer did not answer the hello");
        }
    }

    public override void Send(byte[] buf, int offset, int count) {
        try {
#if NET8_0_OR_GREATER
            if (style == IoStyle.Task) {
                var sending = socket.SendAsync(new ReadOnlyMemory<byte>(buf, offset, count), SocketFlags.None);
                if (!sending.IsCompletedSuccessfully) sending.AsTask().GetAwaiter().GetResult();
                return;
            }
#endif
            socket.Send(buf, offset, count, SocketFlags.None);
        } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
            throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
        }
    }

    /// <summary>
    /// One datagram of data; handshake datagrams are answered or skipped. A deadline is the
    /// socket's receive timeout (SO_RCVTIMEO, set when it changes): no extra call a datagram.
    /// </summary>
    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        int timeoutMs = timeoutNs < 0 ? 0 : (int)Math.Max(1, Math.Min(int.MaxValue, timeoutNs / 1000000));
        if (timeoutMs != receiveTimeoutMs && style != IoStyle.Task) {
            socket.ReceiveTimeout = timeoutMs;
            receiveTimeoutMs = timeoutMs;
        }
        while (true) {
            int n;
            try {
#if NET8_0_OR_GREATER
                if (style == IoStyle.Task) n = ReceiveTask(buf, offset, count, timeoutNs);
                else
#endif
                n = socket.Receive(buf, offset, count, SocketFlags.None);
            } catch (SocketException e) {
                if (e.SocketErrorCode == SocketError.TimedOut || e.SocketErrorCode == SocketError.WouldBlock)
                    throw new TimedOut("recv");
                if (e.SocketErrorCode == SocketError.ConnectionRefused)
                    throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
                throw;
            }
            if (n == 0 || Handshake(buf, offset, n)) continue;
            return n;
        }
    }

    /// <summary>True when the datagram was the peer's hello (answered) or ack: not data.</summary>
    bool Handshake(byte[] buf, int offset, int n) {
        if (Is(buf, offset, n, Hello)) {
            socket.Send(Ack, 0, Ack.Length, SocketFlags.None);
            return true;
        }
        return Is(buf, offset, n, Ack);
    }

#if NET8_0_OR_GREATER
    public override bool Asynchronous {
        get { return style == IoStyle.Task; }
    }

    SocketAddress to;

    /// <summary>S1's send: SendToAsync(ReadOnlyMemory, SocketFlags, SocketAddress), awaited.</summary>
    public override async System.Threading.Tasks.Task SendAsync(byte[] buf, int offset, int count) {
        if (to == null) to = socket.RemoteEndPoint.Serialize();
        try {
            await socket.SendToAsync(new ReadOnlyMemory<byte>(buf, offset, count), SocketFlags.None, to);
        } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
            throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
        }
    }

    /// <summary>S1's receive: one datagram of data by ReceiveFromAsync(Memory, SocketFlags,
    /// SocketAddress), awaited; handshake datagrams answered and skipped.
    /// OperationCanceledException when quiet fires.</summary>
    public override async System.Threading.Tasks.ValueTask<int> RecvDatagramAsync(byte[] buf, int offset, int count,
                                                                                   System.Threading.CancellationToken quiet) {
        if (from == null) from = new SocketAddress(socket.AddressFamily);
        while (true) {
            int n;
            try {
                n = await socket.ReceiveFromAsync(new Memory<byte>(buf, offset, count), SocketFlags.None, from, quiet);
            } catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused) {
                throw new KitException(KitException.E_CLOSED, "udp.inet: the peer socket is gone");
            }
            if (n == 0 || Handshake(buf, offset, n)) continue;
            return n;
        }
    }
#endif

    public override Dictionary<string, string> Settings() {
        return new Dictionary<string, string> { { "sndbuf", socket.SendBufferSize.ToString() },
                                                { "rcvbuf", socket.ReceiveBufferSize.ToString() } };
    }

    public override void Close() {
        socket.Close();
    }
}
}
