using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Pipes;

namespace IpcBench.Kit {
/// <summary>
/// socket.unix through System.IO.Pipes, the API a .NET program names "named pipes". Mono (as
/// .NET on Unix) implements NamedPipeServerStream as a listening AF_UNIX stream socket at
/// /tmp/CoreFxPipe_NAME, or at NAME itself when it is an absolute path, and
/// NamedPipeClientStream as a connect to it: the bytes meet the native socket.unix. The
/// creator's pipe is a path in a folder of its own in runtime_dir; its server stream listens
/// from open and accepts at connect (BeginWaitForConnection, with the deadline); both ends are
/// opened with PipeOptions.Asynchronous, as .NET's documentation shows for overlapped I/O; then
/// the messages go by the IoStyle's calls: PipeStream.Write / Read (--api pipestream),
/// BeginWrite / BeginRead (pipestream-apm) or WriteAsync / ReadAsync on Memory (pipestream-task).
/// socket.unix's sndbuf and rcvbuf go to the socket under the pipe (its SafePipeHandle is that
/// socket's descriptor on Unix) by setsockopt once connected, and are read back from it: a .NET
/// program has no property for them on a PipeStream.
/// </summary>
sealed class PipeStreamEndpoint : Endpoint {
    readonly bool creator;
    readonly IoStyle style;
    readonly PrivateFolder folder;
    readonly string path;
    readonly PipeDirection direction;
    NamedPipeServerStream server;
    NamedPipeClientStream client;
    PipeStream pipe;
    readonly int sndbuf, rcvbuf;

    public PipeStreamEndpoint(Spec spec, IoStyle style) {
        this.style = style;
        Transports.CheckOptions(spec, new[] { "sndbuf", "rcvbuf" }, null);
        if (spec.Option("sndbuf").Length > 0) sndbuf = Transports.ParseBytes("sndbuf", spec.Option("sndbuf"));
        if (spec.Option("rcvbuf").Length > 0) rcvbuf = Transports.ParseBytes("rcvbuf", spec.Option("rcvbuf"));
        creator = spec.Creator;
        // One way as a one-way program opens it (S0's reader In, its writer Out); both for --bidir.
        direction = spec.Direction == Transports.SEND ? PipeDirection.Out
                  : spec.Direction == Transports.RECV ? PipeDirection.In : PipeDirection.InOut;
        if (creator) {
            folder = new PrivateFolder(spec.RuntimeDir);
            path = folder.Name("pipe");
            server = new NamedPipeServerStream(path, direction, 1, PipeTransmissionMode.Byte, PipeOptions.Asynchronous);
            if (!File.Exists(path))
                throw new KitException(KitException.E_UNSUPPORTED, "NamedPipeServerStream made no socket at " + path +
                                       " (this Mono does not map named pipes onto Unix sockets as documented in kits/README.md)");
            if (Libc.chmod(path, Convert.ToUInt32("600", 8)) != 0) throw Libc.Failure("chmod " + path, Libc.Errno());
        } else {
            if (!spec.Address.StartsWith("/"))
                throw new KitException(KitException.E_BAD_ADDRESS, "socket.unix address '" + spec.Address + "' is not a path");
            path = spec.Address;
        }
    }

    public override string SendCall {
        get { return StyledCalls.Name(style, "PipeStream.Write", "PipeStream.BeginWrite", "PipeStream.WriteAsync(ReadOnlyMemory)", "PipeStream.Write"); }
    }

    public override string RecvCall {
        get { return StyledCalls.Name(style, "PipeStream.Read", "PipeStream.BeginRead", "PipeStream.ReadAsync(Memory)", "PipeStream.Read"); }
    }

    public override string Export() {
        return path;
    }

    public override void Connect(long timeoutNs) {
        if (creator) {
            IAsyncResult waiting = server.BeginWaitForConnection(null, null);
            if (!waiting.AsyncWaitHandle.WaitOne(timeoutNs < 0 ? -1 : Transports.Millis(timeoutNs)))
                throw new TimedOut("socket.unix (NamedPipeServerStream): no peer connected in time");
            server.EndWaitForConnection(waiting);
            pipe = server;
            SizeBuffers();
            try {
                File.Delete(path);
            } catch (IOException) {
                // ipchost removes the run folder after the case
            }
            folder.Remove();
            return;
        }
        client = new NamedPipeClientStream(".", path, direction, PipeOptions.Asynchronous);
        try {
            client.Connect(timeoutNs < 0 ? System.Threading.Timeout.Infinite : Transports.Millis(timeoutNs));
        } catch (TimeoutException) {
            throw new TimedOut("socket.unix (NamedPipeClientStream): connect timed out");
        }
        pipe = client;
        SizeBuffers();
    }

    int SocketFd() {
        return (int)pipe.SafePipeHandle.DangerousGetHandle();
    }

    void SizeBuffers() {
        SetBuffer(Libc.SO_SNDBUF, "sndbuf", sndbuf);
        SetBuffer(Libc.SO_RCVBUF, "rcvbuf", rcvbuf);
    }

    void SetBuffer(int name, string key, int bytes) {
        if (bytes <= 0) return;
        if (Libc.setsockopt(SocketFd(), Libc.SOL_SOCKET, name, ref bytes, 4) != 0)
            throw Libc.Failure("socket.unix (PipeStream): setsockopt " + key + " on the pipe's socket", Libc.Errno());
    }

    int Buffer(int name) {
        int value;
        uint len = 4;
        return Libc.getsockopt(SocketFd(), Libc.SOL_SOCKET, name, out value, ref len) == 0 ? value : -1;
    }

    public override Dictionary<string, string> Settings() {
        var o = new Dictionary<string, string>();
        if (pipe == null) return o;
        o["sndbuf"] = Buffer(Libc.SO_SNDBUF).ToString();
        o["rcvbuf"] = Buffer(Libc.SO_RCVBUF).ToString();
        return o;
    }

    public override void Send(byte[] buf, int offset, int count) {
        try {
            StyledCalls.Write(style, pipe, buf, offset, count);
        } catch (IOException e) {
            throw new KitException(KitException.E_CLOSED, "socket.unix (PipeStream): the peer closed the pipe (" + e.Message + ")");
        }
    }

    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        int n;
        try {
            n = StyledCalls.Read(style, pipe, buf, offset, count);
        } catch (IOException) {
            return -1; // reset by the peer
        }
        return n == 0 ? -1 : n;
    }

    public override bool Asynchronous {
        get { return style == IoStyle.Apm || style == IoStyle.Task; }
    }

    readonly ApmOp apmWriting = new ApmOp(), apmReading = new ApmOp();

    public override async System.Threading.Tasks.Task SendAsync(byte[] buf, int offset, int count) {
        try {
            if (style == IoStyle.Apm)
                await apmWriting.Write(pipe, buf, offset, count);
            else
                await StyledCalls.WriteAsync(style, pipe, buf, offset, count);
        } catch (IOException e) {
            throw new KitException(KitException.E_CLOSED, "socket.unix (PipeStream): the peer closed the pipe (" + e.Message + ")");
        }
    }

    public override async System.Threading.Tasks.Task<int> RecvAsync(byte[] buf, int offset, int count) {
        int n;
        try {
            n = style == IoStyle.Apm ? await apmReading.Read(pipe, buf, offset, count)
                                     : await StyledCalls.ReadAsync(style, pipe, buf, offset, count);
        } catch (IOException) {
            return -1; // reset by the peer
        }
        return n == 0 ? -1 : n;
    }

    public override void Close() {
        if (pipe != null) {
            try {
                pipe.Dispose();
            } catch (IOException) {
                // the peer left first
            }
        }
        if (server != null && pipe == null) server.Dispose();
        pipe = null;
        server = null;
        client = null;
        if (folder != null) {
            try {
                File.Delete(path);
            } catch (IOException) {
                // gone already
            }
            folder.Remove();
        }
    }
}
}
