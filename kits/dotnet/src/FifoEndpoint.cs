using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

namespace IpcBench.Kit {
/// <summary>
/// pipe.fifo through a FileStream, as a .NET program opens, reads and writes a FIFO (buffer size
/// 1: every Write is a write(2) of the whole message, every Read one read(2)). The writer sends
/// the one-byte hello 'H' after its open; the reader reads it (docs/worker-protocol.md).
/// </summary>
sealed class FifoEndpoint : Endpoint {
    readonly string direction;
    readonly PrivateFolder folder;
    readonly string path;
    readonly int pipeSize;
    FileStream file;

    public FifoEndpoint(Spec spec) {
        Transports.CheckOptions(spec, new[] { "pipe_size" }, new Dictionary<string, string> { { "splice", "none" } });
        if (spec.Direction == Transports.BOTH) throw new KitException(KitException.E_UNSUPPORTED, "a pipe carries data one way, not both");
        direction = spec.Direction;
        if (spec.Option("pipe_size").Length > 0) pipeSize = Transports.ParseBytes("pipe_size", spec.Option("pipe_size"));
        if (spec.Creator) {
            folder = new PrivateFolder(spec.RuntimeDir);
            path = folder.Name("fifo");
            if (Libc.mkfifo(path, Convert.ToUInt32("600", 8)) != 0) throw Libc.Failure("mkfifo " + path, Libc.Errno());
        } else {
            if (!spec.Address.StartsWith("/"))
                throw new KitException(KitException.E_BAD_ADDRESS, "pipe.fifo address '" + spec.Address + "' is not an absolute FIFO path");
            path = spec.Address;
            if (!File.Exists(path)) // a FIFO, checked once open (F_GETPIPE_SZ)
                throw new KitException(KitException.E_BAD_ADDRESS, "pipe.fifo address '" + spec.Address + "' is not an existing FIFO");
        }
    }

    bool Reads {
        get { return direction == Transports.RECV; }
    }

    public override string SendCall {
        get { return "FileStream.Write"; }
    }

    public override string RecvCall {
        get { return "FileStream.Read"; }
    }

    public override string Export() {
        return path;
    }

    /// <summary>
    /// The open blocks (a FIFO's open waits for the other end), so it runs on a thread of its own;
    /// a blocked open already counts as a reader or writer on Linux, so the native side's
    /// O_NONBLOCK open meets it. A deadline that passes while it blocks is met by opening the
    /// other end ourselves, which releases it, and a timeout.
    /// </summary>
    public override void Connect(long timeoutNs) {
        FileStream opened = null;
        Exception failure = null;
        var opening = new Thread(() => {
            try {
                var f = new FileStream(path, FileMode.Open, Reads ? FileAccess.Read : FileAccess.Write, FileShare.ReadWrite, 1);
                if (Libc.fcntl(Fd(f), Libc.F_GETPIPE_SZ, 0) < 0) {
                    f.Dispose();
                    throw new KitException(KitException.E_BAD_ADDRESS, "pipe.fifo address '" + path + "' is not a FIFO");
                }
                if (Reads) ExpectHello(f);
                opened = f;
            } catch (Exception e) {
                failure = e;
            }
        }) { IsBackground = true, Name = "fifo-open" };
        opening.Start();
        if (!opening.Join(timeoutNs < 0 ? Timeout.Infinite : Transports.Millis(timeoutNs))) {
            Release();
            if (opening.Join(1000) && opened != null) opened.Dispose();
            throw new TimedOut(Reads ? "timed out waiting for the writer to attach to the pipe" : "timed out waiting for a reader to open FIFO " + path);
        }
        if (failure is FileNotFoundException) throw new KitException(KitException.E_CLOSED, "FIFO " + path + " was removed by its creator");
        if (failure != null) throw failure is KitException ? failure : new KitException(KitException.E_SYSTEM, "open " + path + ": " + failure.Message);
        file = opened;
        if (pipeSize > 0 && Libc.fcntl(Fd(file), Libc.F_SETPIPE_SZ, pipeSize) < 0)
            throw new KitException(KitException.E_BAD_OPTION, "option pipe_size=" + pipeSize + ": " + Libc.Error(Libc.Errno()));
        if (!Reads) {
            file.Write(new[] { (byte)'H' }, 0, 1);
            file.Flush();
        }
    }

    static int Fd(FileStream f) {
        return (int)f.SafeFileHandle.DangerousGetHandle();
    }

    static void ExpectHello(FileStream f) {
        int hello = f.ReadByte();
        if (hello != 'H') {
            f.Dispose();
            throw new KitException(KitException.E_INVALID, "pipe handshake: expected the writer's 'H', got " + (hello < 0 ? "the end" : "byte " + hello));
        }
    }

    /// <summary>Ends an open (or a hello read) that is still blocked: opens the other end, closes it.</summary>
    void Release() {
        int other = Libc.open(path, (Reads ? Libc.O_WRONLY : Libc.O_RDONLY) | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        if (other >= 0) Libc.close(other);
    }

    public override void Send(byte[] buf, int offset, int count) {
        try {
            file.Write(buf, offset, count);
            file.Flush();
        } catch (IOException e) {
            throw new KitException(KitException.E_CLOSED, "pipe.fifo: the reader closed the pipe (" + e.Message + ")");
        }
    }

    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        int n = file.Read(buf, offset, count);
        return n == 0 ? -1 : n;
    }

    public override Dictionary<string, string> Settings() {
        var o = new Dictionary<string, string>();
        if (file != null) o["pipe_size"] = Libc.fcntl(Fd(file), Libc.F_GETPIPE_SZ, 0).ToString();
        o["splice"] = "none";
        return o;
    }

    public override void Close() {
        if (file != null) {
            try {
                file.Dispose();
            } catch (IOException) {
                // a pipe whose reader left: the last bytes had nowhere to go
            }
        }
        file = null;
        if (folder != null) {
            try {
                File.Delete(path);
            } catch (IOException) {
                // ipchost removes the run folder after the case
            }
            folder.Remove();
        }
    }
}
}
