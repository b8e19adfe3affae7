using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;

namespace IpcBench.Kit {
/// <summary>An AF_UNIX address for System.Net.Sockets (what Mono.Posix's UnixEndPoint does).</summary>
sealed class UnixPath : EndPoint {
    public readonly string Path;

    public UnixPath(string path) {
        Path = path;
    }

    public override AddressFamily AddressFamily {
        get { return AddressFamily.Unix; }
    }

    public override SocketAddress Serialize() {
        byte[] bytes = Encoding.UTF8.GetBytes(Path);
        var sa = new SocketAddress(AddressFamily.Unix, 2 + bytes.Length + 1);
        for (int i = 0; i < bytes.Length; i++) sa[2 + i] = bytes[i];
        sa[2 + bytes.Length] = 0;
        return sa;
    }

    public override EndPoint Create(SocketAddress sa) {
        var bytes = new List<byte>();
        for (int i = 2; i < sa.Size && sa[i] != 0; i++) bytes.Add(sa[i]);
        return new UnixPath(Encoding.UTF8.GetString(bytes.ToArray()));
    }

    public override string ToString() {
        return Path;
    }
}

/// <summary>
/// One direction of a socket the way the .NET write-up drove it: SocketAsyncEventArgs, one
/// operation in flight, the caller waiting for its completion. When SendAsync / ReceiveAsync
/// return false the operation finished at once and no wake-up is needed.
/// </summary>
sealed class AsyncOp : IOperation {
    static readonly Action Sentinel = () => { };
    readonly SocketAsyncEventArgs args = new SocketAsyncEventArgs();
    readonly SemaphoreSlim done = new SemaphoreSlim(0);
    bool awaiting, completedAtOnce;
    Action continuation;

    public AsyncOp() {
        args.Completed += (sender, e) => {
            if (!awaiting) {
                done.Release();
                return;
            }
            Action prev = continuation ?? Interlocked.CompareExchange(ref continuation, Sentinel, null);
            if (prev != null) prev();
        };
    }

    /// <summary>
    /// The awaited loops' form, SocketAsyncEventArgs awaited as .NET's own write-up on it shows
    /// ("Awaiting Socket Operations": the event args as their own awaiter, nothing allocated an
    /// operation): one that completes at once goes on in the loop, a pending one from the
    /// Completed event, in its thread, as a program that starts its next operation there.
    /// </summary>
    public AsyncOp SendAwaited(Socket s, byte[] buf, int offset, int count) {
        return Begin(s, buf, offset, count, true);
    }

    public AsyncOp ReceiveAwaited(Socket s, byte[] buf, int offset, int count) {
        return Begin(s, buf, offset, count, false);
    }

    AsyncOp Begin(Socket s, byte[] buf, int offset, int count, bool send) {
        awaiting = true;
        continuation = null;
        args.SetBuffer(buf, offset, count);
        completedAtOnce = !(send ? s.SendAsync(args) : s.ReceiveAsync(args));
        return this;
    }

    public AsyncOp GetAwaiter() {
        return this;
    }

    IOperation IOperation.GetAwaiter() {
        return this;
    }

    public bool IsCompleted {
        get { return completedAtOnce; }
    }

    public void OnCompleted(Action next) {
        if (continuation == Sentinel || Interlocked.CompareExchange(ref continuation, next, null) == Sentinel)
            System.Threading.Tasks.Task.Run(next);  // it completed between IsCompleted and now
    }

    public int GetResult() {
        awaiting = false;
        return Finish();
    }

    public int Send(Socket s, byte[] buf, int offset, int count) {
        args.SetBuffer(buf, offset, count);
        if (s.SendAsync(args)) done.Wait();
        return Finish();
    }

    public int Receive(Socket s, byte[] buf, int offset, int count) {
        args.SetBuffer(buf, offset, count);
        if (s.ReceiveAsync(args)) done.Wait();
        return Finish();
    }

    int Finish() {
        if (args.SocketError == SocketError.Success) return args.BytesTransferred;
        if (args.SocketError == SocketError.ConnectionReset || args.SocketError == SocketError.Shutdown ||
            args.SocketError == SocketError.ConnectionAborted)
            return -1;
        throw new SocketException((int)args.SocketError);
    }
}

/// <summary>
/// socket.tcp and socket.unix through System.Net.Sockets: the creator listens at open and accepts
/// one connection at connect (a Unix socket file is unlinked once accepted); the connector
/// connects, retrying until the deadline; then every send and receive is a SocketAsyncEventArgs
/// operation (SendAsync / ReceiveAsync), or the calls of another IoStyle (--api sync, apm, task).
/// Duplex: one endpoint serves both directions.
/// </summary>
sealed class SocketEndpoint : Endpoint {
    readonly string id;
    readonly bool tcp, creator, nodelay;
    readonly IoStyle style;
    readonly int sndbuf, rcvbuf;
    readonly byte[] bindingKey;
    static readonly byte[] BindingMagic = System.Text.Encoding.ASCII.GetBytes("ipcbench-bind/1\n");
    readonly AsyncOp sending = new AsyncOp(), receiving = new AsyncOp();
    readonly ApmOp apmSending = new ApmOp(), apmReceiving = new ApmOp();
    Socket listener, socket;
    EndPoint peer;
    PrivateFolder folder;
    string path;

    public SocketEndpoint(Spec spec, IoStyle style) {
        this.style = style;
        bindingKey = spec.BindingKey;
        id = spec.Transport;
        tcp = id == "socket.tcp";
        creator = spec.Creator;
        Transports.CheckOptions(spec, tcp ? new[] { "sndbuf", "rcvbuf", "nodelay", "bind" } : new[] { "sndbuf", "rcvbuf" },
                                tcp ? new Dictionary<string, string> { { "zerocopy", "0" } } : null);
        if (spec.Option("sndbuf").Length > 0) sndbuf = Transports.ParseBytes("sndbuf", spec.Option("sndbuf"));
        if (spec.Option("rcvbuf").Length > 0) rcvbuf = Transports.ParseBytes("rcvbuf", spec.Option("rcvbuf"));
        nodelay = spec.Option("nodelay") != "0";
        if (creator) {
            Listen(spec);
        } else if (tcp) {
            peer = Transports.ParseInet(spec.Address, "socket.tcp address");
        } else {
            if (!spec.Address.StartsWith("/"))
                throw new KitException(KitException.E_BAD_ADDRESS, "socket.unix address '" + spec.Address + "' is not a path");
            peer = new UnixPath(spec.Address);
        }
    }

    Socket NewSocket(EndPoint where) {
        var s = tcp ? new Socket(where.AddressFamily, SocketType.Stream, ProtocolType.Tcp)
                    : new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        if (sndbuf > 0) s.SendBufferSize = sndbuf;
        if (rcvbuf > 0) s.ReceiveBufferSize = rcvbuf;
        return s;
    }

    void Listen(Spec spec) {
        if (tcp) {
            string where = spec.Option("bind");
            if (where.Length == 0) where = spec.Address.Length == 0 ? "127.0.0.1:0" : spec.Address;
            IPEndPoint local = Transports.ParseInet(where, "option bind");
            listener = NewSocket(local);
            listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            listener.Bind(local);
        } else {
            folder = new PrivateFolder(spec.RuntimeDir);
            path = folder.Name("s");
            listener = NewSocket(null);
            listener.Bind(new UnixPath(path));
            if (Libc.chmod(path, Convert.ToUInt32("600", 8)) != 0) throw Libc.Failure("chmod " + path, Libc.Errno());
        }
        listener.Listen(4);
    }

    public override string SendCall {
        get { return StyledCalls.Name(style, "Socket.Send", "Socket.BeginSend", "Socket.SendAsync(ReadOnlyMemory)", "Socket.SendAsync(SocketAsyncEventArgs)"); }
    }

    public override string RecvCall {
        get { return StyledCalls.Name(style, "Socket.Receive", "Socket.BeginReceive", "Socket.ReceiveAsync(Memory)", "Socket.ReceiveAsync(SocketAsyncEventArgs)"); }
    }

    public override string Export() {
        return tcp ? Transports.FormatInet((IPEndPoint)listener.LocalEndPoint) : path;
    }

    public override void Connect(long timeoutNs) {
        long deadline = Transports.DeadlineOf(timeoutNs);
        if (creator) {
            while (!listener.Poll(100000, SelectMode.SelectRead))
                if (Transports.LeftOf(deadline) == 0) throw new TimedOut(id + ": no peer connected in time");
            socket = listener.Accept();
            listener.Close();
            listener = null;
            Unlink();
        } else {
            ConnectPeer(deadline);
            if (bindingKey.Length > 0) {  // protocol 1.1: the key, before any data
                var hello = new byte[BindingMagic.Length + bindingKey.Length];
                Buffer.BlockCopy(BindingMagic, 0, hello, 0, BindingMagic.Length);
                Buffer.BlockCopy(bindingKey, 0, hello, BindingMagic.Length, bindingKey.Length);
                for (int sent = 0; sent < hello.Length;) sent += socket.Send(hello, sent, hello.Length - sent, SocketFlags.None);
            }
        }
        if (sndbuf > 0) socket.SendBufferSize = sndbuf;
        if (rcvbuf > 0) socket.ReceiveBufferSize = rcvbuf;
        if (tcp) socket.NoDelay = nodelay;
    }

    void ConnectPeer(long deadline) {
        while (true) {
            Socket s = NewSocket(peer);
            try {
                s.Connect(peer);
                socket = s;
                return;
            } catch (SocketException e) {
                s.Close();
                // Refused, or (a Unix socket) not there yet: the creator is still getting ready.
                bool early = e.SocketErrorCode == SocketError.ConnectionRefused ||
                             (!tcp && (e.SocketErrorCode == SocketError.AddressNotAvailable || !File.Exists(((UnixPath)peer).Path)));
                if (!early) throw;
            }
            if (Transports.LeftOf(deadline) == 0) throw new TimedOut(id + ": connect timed out (refused)");
            Thread.Sleep(1);
        }
    }

    public override void Send(byte[] buf, int offset, int count) {
        while (count > 0) {
            int n = style == IoStyle.Saea ? sending.Send(socket, buf, offset, count)
                                          : StyledCalls.Send(style, socket, buf, offset, count);
            if (n < 0) throw new KitException(KitException.E_CLOSED, ClosedText);
            offset += n;
            count -= n;
        }
    }

    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        int n = style == IoStyle.Saea ? receiving.Receive(socket, buf, offset, count)
                                      : StyledCalls.Receive(style, socket, buf, offset, count);
        return n == 0 ? -1 : n;
    }

    // SocketAsyncEventArgs is an asynchronous API too: its loops run awaited (the Completed
    // event goes on), as a program written with it does; blocking on each completion measured
    // the thread hand-offs (Mono's kit 0.63 of such a program, CoreCLR's on a Unix socket 0.77).
    public override bool Asynchronous {
        get { return style == IoStyle.Apm || style == IoStyle.Task || style == IoStyle.Saea; }
    }

    public override bool DirectOperations {
        get { return style == IoStyle.Saea || style == IoStyle.Apm; }
    }

    public override IOperation SendOperation(byte[] buf, int offset, int count) {
        if (style == IoStyle.Saea) return sending.SendAwaited(socket, buf, offset, count);
        return apmSending.Send(socket, buf, offset, count);
    }

    public override IOperation ReceiveOperation(byte[] buf, int offset, int count) {
        if (style == IoStyle.Saea) return receiving.ReceiveAwaited(socket, buf, offset, count);
        return apmReceiving.Receive(socket, buf, offset, count);
    }

    public override string ClosedText {
        get { return id + ": the peer closed the connection"; }
    }

    public override async System.Threading.Tasks.Task SendAsync(byte[] buf, int offset, int count) {
        while (count > 0) {
            int n;
            try {
                n = style == IoStyle.Saea  ? await sending.SendAwaited(socket, buf, offset, count)
                    : style == IoStyle.Apm ? await apmSending.Send(socket, buf, offset, count)
                                           : await StyledCalls.SendAsync(style, socket, buf, offset, count);
            } catch (SocketException e) when (StyledCalls.Gone(e)) {
                n = -1;
            }
            if (n < 0) throw new KitException(KitException.E_CLOSED, ClosedText);
            offset += n;
            count -= n;
        }
    }

    public override async System.Threading.Tasks.Task<int> RecvAsync(byte[] buf, int offset, int count) {
        int n;
        try {
            n = style == IoStyle.Saea  ? await receiving.ReceiveAwaited(socket, buf, offset, count)
                : style == IoStyle.Apm ? await apmReceiving.Receive(socket, buf, offset, count)
                                       : await StyledCalls.ReceiveAsync(style, socket, buf, offset, count);
        } catch (SocketException e) when (StyledCalls.Gone(e)) {
            return -1;
        }
        return n <= 0 ? -1 : n;
    }

    public override Dictionary<string, string> Settings() {
        var o = new Dictionary<string, string>();
        Socket s = socket ?? listener;
        o["sndbuf"] = s.SendBufferSize.ToString();
        o["rcvbuf"] = s.ReceiveBufferSize.ToString();
        if (tcp) {
            o["nodelay"] = socket != null && socket.NoDelay ? "1" : "0";
            o["zerocopy"] = "0";
        }
        return o;
    }

    void Unlink() {
        if (path != null) {
            try {
                File.Delete(path);
            } catch (IOException) {
                // ipchost removes the run folder after the case
            }
            path = null;
        }
        if (folder != null) {
            folder.Remove();
            folder = null;
        }
    }

    public override void Close() {
        if (socket != null) socket.Close();
        if (listener != null) listener.Close();
        socket = null;
        listener = null;
        Unlink();
    }
}
}
