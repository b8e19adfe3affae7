using System;
using System.IO;
using System.Net.Sockets;
using System.Threading.Tasks;

namespace IpcBench.Kit {
/// <summary>
/// How a stream endpoint calls the class library, named by the kit's --api (kits/README.md,
/// "C#"): each is a way .NET programs are written, called the way such a program calls it,
/// one operation in flight on each direction.
/// </summary>
public enum IoStyle {
    /// <summary>SocketAsyncEventArgs: SendAsync / ReceiveAsync, the completion awaited.</summary>
    Saea,
    /// <summary>Blocking calls: Socket.Send / Receive, PipeStream.Write / Read.</summary>
    Sync,
    /// <summary>The asynchronous programming model: Begin* then End*.</summary>
    Apm,
    /// <summary>Memory&lt;byte&gt; with ValueTask: SendAsync / ReceiveAsync, WriteAsync / ReadAsync (.NET only).</summary>
    Task,
}

/// <summary>The calls of one style on a Socket and on a Stream; -1 when the peer is gone.</summary>
static class StyledCalls {
    public static bool Gone(SocketException e) {
        return e.SocketErrorCode == SocketError.ConnectionReset || e.SocketErrorCode == SocketError.Shutdown ||
               e.SocketErrorCode == SocketError.ConnectionAborted;
    }

    public static int Send(IoStyle style, Socket s, byte[] buf, int offset, int count) {
        try {
            switch (style) {
            case IoStyle.Apm:
                return s.EndSend(s.BeginSend(buf, offset, count, SocketFlags.None, null, null));
#if NETCOREAPP
            case IoStyle.Task: {
                var pending = s.SendAsync(new ReadOnlyMemory<byte>(buf, offset, count), SocketFlags.None);
                return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
            }
#endif
            default:
                return s.Send(buf, offset, count, SocketFlags.None);
            }
        } catch (SocketException e) when (Gone(e)) {
            return -1;
        }
    }

    public static int Receive(IoStyle style, Socket s, byte[] buf, int offset, int count) {
        try {
            switch (style) {
            case IoStyle.Apm:
                return s.EndReceive(s.BeginReceive(buf, offset, count, SocketFlags.None, null, null));
#if NETCOREAPP
            case IoStyle.Task: {
                var pending = s.ReceiveAsync(new Memory<byte>(buf, offset, count), SocketFlags.None);
                return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
            }
#endif
            default:
                return s.Receive(buf, offset, count, SocketFlags.None);
            }
        } catch (SocketException e) when (Gone(e)) {
            return -1;
        }
    }

    public static void Write(IoStyle style, Stream s, byte[] buf, int offset, int count) {
        switch (style) {
        case IoStyle.Apm:
            s.EndWrite(s.BeginWrite(buf, offset, count, null, null));
            return;
#if NETCOREAPP
        case IoStyle.Task: {
            var pending = s.WriteAsync(new ReadOnlyMemory<byte>(buf, offset, count));
            if (!pending.IsCompletedSuccessfully) pending.AsTask().GetAwaiter().GetResult();
            return;
        }
#endif
        default:
            s.Write(buf, offset, count);
            return;
        }
    }

    public static int Read(IoStyle style, Stream s, byte[] buf, int offset, int count) {
        switch (style) {
        case IoStyle.Apm:
            return s.EndRead(s.BeginRead(buf, offset, count, null, null));
#if NETCOREAPP
        case IoStyle.Task: {
            var pending = s.ReadAsync(new Memory<byte>(buf, offset, count));
            return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
        }
#endif
        default:
            return s.Read(buf, offset, count);
        }
    }

    /// <summary>APM or Task as a Task: the APM's callback completes it, and the awaiting loop
    /// goes on in that callback's thread (continuations run synchronously), as a program that
    /// starts the next operation from its callback does.</summary>
    public static Task<int> SendAsync(IoStyle style, Socket s, byte[] buf, int offset, int count) {
#if NETCOREAPP
        if (style == IoStyle.Task) return s.SendAsync(new ReadOnlyMemory<byte>(buf, offset, count), SocketFlags.None).AsTask();
#endif
        var done = new TaskCompletionSource<int>();
        s.BeginSend(buf, offset, count, SocketFlags.None, ar => {
            try {
                done.SetResult(s.EndSend(ar));
            } catch (Exception e) {
                done.SetException(e);
            }
        }, null);
        return done.Task;
    }

    public static Task<int> ReceiveAsync(IoStyle style, Socket s, byte[] buf, int offset, int count) {
#if NETCOREAPP
        if (style == IoStyle.Task) return s.ReceiveAsync(new Memory<byte>(buf, offset, count), SocketFlags.None).AsTask();
#endif
        var done = new TaskCompletionSource<int>();
        s.BeginReceive(buf, offset, count, SocketFlags.None, ar => {
            try {
                done.SetResult(s.EndReceive(ar));
            } catch (Exception e) {
                done.SetException(e);
            }
        }, null);
        return done.Task;
    }

    public static Task WriteAsync(IoStyle style, Stream s, byte[] buf, int offset, int count) {
#if NETCOREAPP
        if (style == IoStyle.Task) return s.WriteAsync(new ReadOnlyMemory<byte>(buf, offset, count)).AsTask();
#endif
        var done = new TaskCompletionSource<int>();
        s.BeginWrite(buf, offset, count, ar => {
            try {
                s.EndWrite(ar);
                done.SetResult(count);
            } catch (Exception e) {
                done.SetException(e);
            }
        }, null);
        return done.Task;
    }

    public static Task<int> ReadAsync(IoStyle style, Stream s, byte[] buf, int offset, int count) {
#if NETCOREAPP
        if (style == IoStyle.Task) return s.ReadAsync(new Memory<byte>(buf, offset, count)).AsTask();
#endif
        var done = new TaskCompletionSource<int>();
        s.BeginRead(buf, offset, count, ar => {
            try {
                done.SetResult(s.EndRead(ar));
            } catch (Exception e) {
                done.SetException(e);
            }
        }, null);
        return done.Task;
    }

    public static string Name(IoStyle style, string sync, string apm, string task, string saea) {
        switch (style) {
        case IoStyle.Apm: return apm;
        case IoStyle.Task: return task;
        case IoStyle.Saea: return saea;
        default: return sync;
        }
    }
}
}
