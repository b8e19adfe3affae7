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

/// <summary>
/// One operation of an asynchronous API that the loop awaits itself (Endpoint.ReceiveOperation,
/// SendOperation), no async method between: on Mono each async method entered a message
/// entered and left an ExecutionContext scope and made its task, a tenth to a sixth of the
/// kit's instructions a message above a callback program's (scripts/bench/fidelity/
/// instructions.sh). GetResult: the bytes moved, 0 or -1 when the peer closed; a SocketException
/// the peer's leaving makes (StyledCalls.Gone) is the loop's to read as closed.
/// </summary>
public interface IOperation : System.Runtime.CompilerServices.INotifyCompletion {
    IOperation GetAwaiter();
    bool IsCompleted { get; }
    int GetResult();
}

/// <summary>
/// Begin* / End* awaited the way an APM program runs: an operation that CompletedSynchronously
/// goes on in the loop that began it (the APM's documentation: the callback returns at once for
/// those), a pending one in its callback's thread; one reusable object a direction, nothing
/// allocated an operation. A TaskCompletionSource an operation cost CoreCLR's 1 KiB TCP row a
/// third of a callback program's rate (0.68).
/// </summary>
sealed class ApmOp : IOperation {
    static readonly Action Sentinel = () => { };
    readonly AsyncCallback callback;
    Socket socket;
    Stream stream;
    bool send, atOnce;
    IAsyncResult result;
    Action continuation;
    int count;

    public ApmOp() {
        callback = ar => {
            if (ar.CompletedSynchronously) return;  // the loop that began it goes on
            result = ar;
            Action prev = continuation ?? System.Threading.Interlocked.CompareExchange(ref continuation, Sentinel, null);
            if (prev != null) prev();
        };
    }

    public ApmOp Send(Socket s, byte[] buf, int offset, int n) {
        Reset(s, null, true, n);
        return Started(s.BeginSend(buf, offset, n, SocketFlags.None, callback, null));
    }

    public ApmOp Receive(Socket s, byte[] buf, int offset, int n) {
        Reset(s, null, false, n);
        return Started(s.BeginReceive(buf, offset, n, SocketFlags.None, callback, null));
    }

    public ApmOp Write(Stream s, byte[] buf, int offset, int n) {
        Reset(null, s, true, n);
        return Started(s.BeginWrite(buf, offset, n, callback, null));
    }

    public ApmOp Read(Stream s, byte[] buf, int offset, int n) {
        Reset(null, s, false, n);
        return Started(s.BeginRead(buf, offset, n, callback, null));
    }

    void Reset(Socket s, Stream st, bool sending, int n) {
        socket = s;
        stream = st;
        send = sending;
        count = n;
        continuation = null;
        result = null;
    }

    ApmOp Started(IAsyncResult ar) {
        atOnce = ar.CompletedSynchronously;
        if (atOnce) result = ar;
        return this;
    }

    public ApmOp GetAwaiter() {
        return this;
    }

    IOperation IOperation.GetAwaiter() {
        return this;
    }

    public bool IsCompleted {
        get { return atOnce; }
    }

    public void OnCompleted(Action next) {
        if (continuation == Sentinel || System.Threading.Interlocked.CompareExchange(ref continuation, next, null) == Sentinel)
            Task.Run(next);  // it completed between IsCompleted and now
    }

    /// <summary>The bytes moved (a stream's write: all of them).</summary>
    public int GetResult() {
        IAsyncResult ar = result;
        if (socket != null) return send ? socket.EndSend(ar) : socket.EndReceive(ar);
        if (send) {
            stream.EndWrite(ar);
            return count;
        }
        return stream.EndRead(ar);
    }
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
