using System;
using System.Collections.Generic;
using System.Text;

namespace IpcBench.Kit {
/// <summary>
/// The control channel of docs/worker-protocol.md: frames of a 4-byte big-endian length and that
/// many bytes of UTF-8 JSON, an object with a string "type". The socket is the descriptor
/// ipchost handed over (--control-socket FD), read and written with libc: Mono has no public way
/// to make a Socket of an inherited descriptor.
/// </summary>
public sealed unsafe class Channel {
    public const int MaxFrameBytes = 8 << 20;
    readonly int fd;
    readonly object sendLock = new object();
    byte[] input = new byte[1 << 16];
    int filled;

    public Channel(int fd) {
        this.fd = fd;
        int flags = Libc.fcntl(fd, Libc.F_GETFL, 0);
        if (flags < 0) throw new KitException(KitException.E_INVALID, "descriptor " + fd + " is not open");
        Libc.fcntl(fd, Libc.F_SETFL, flags | Libc.O_NONBLOCK);
    }

    bool Wait(short events, int timeoutMs) {
        var p = new[] { new Libc.PollFd { fd = fd, events = events } };
        int n = Libc.poll(p, (UIntPtr)1, timeoutMs);
        return n > 0;
    }

    public void Send(Dictionary<string, object> message) {
        byte[] body = Encoding.UTF8.GetBytes(Json.Write(message));
        var frame = new byte[4 + body.Length];
        frame[0] = (byte)(body.Length >> 24);
        frame[1] = (byte)(body.Length >> 16);
        frame[2] = (byte)(body.Length >> 8);
        frame[3] = (byte)body.Length;
        Buffer.BlockCopy(body, 0, frame, 4, body.Length);
        lock (sendLock) {
            int done = 0;
            fixed (byte* p = frame) {
                while (done < frame.Length) {
                    long n = (long)Libc.write(fd, p + done, (IntPtr)(frame.Length - done));
                    if (n > 0) {
                        done += (int)n;
                        continue;
                    }
                    int e = Libc.Errno();
                    if (e == Libc.EAGAIN || e == Libc.EINTR) {
                        Wait(Libc.POLLOUT, 1000);
                        continue;
                    }
                    throw new ChannelClosed();
                }
            }
        }
    }

    Dictionary<string, object> Next() {
        if (filled < 4) return null;
        int length = (input[0] << 24) | (input[1] << 16) | (input[2] << 8) | input[3];
        if (length < 0 || length > MaxFrameBytes)
            throw KitException.Protocol("a frame of " + (uint)length + " bytes (at most " + MaxFrameBytes + ")");
        if (filled < 4 + length) {
            if (input.Length < 4 + length) Array.Resize(ref input, 4 + length);
            return null;
        }
        string body = Encoding.UTF8.GetString(input, 4, length);
        Buffer.BlockCopy(input, 4 + length, input, 0, filled - 4 - length);
        filled -= 4 + length;
        object message;
        try {
            message = Json.Parse(body);
        } catch (FormatException e) {
            throw KitException.Protocol("a frame that is not JSON: " + e.Message);
        }
        var m = message as Dictionary<string, object>;
        if (m == null || !(Get(m, "type") is string))
            throw KitException.Protocol("a message that is not an object with a string 'type'");
        return m;
    }

    /// <summary>The next message; null when timeoutMs (≥ 0) passed first, -1 waits for ever.</summary>
    public Dictionary<string, object> Receive(long timeoutMs) {
        long deadline = timeoutMs < 0 ? long.MaxValue : Libc.Now() + timeoutMs * 1000000;
        while (true) {
            var message = Next();
            if (message != null) return message;
            if (filled == input.Length) Array.Resize(ref input, input.Length * 2);
            long n;
            fixed (byte* p = input) n = (long)Libc.read(fd, p + filled, (IntPtr)(input.Length - filled));
            if (n == 0) throw new ChannelClosed();
            if (n > 0) {
                filled += (int)n;
                continue;
            }
            int e = Libc.Errno();
            if (e != Libc.EAGAIN && e != Libc.EINTR) throw new ChannelClosed();
            long left = deadline - Libc.Now();
            if (timeoutMs >= 0 && left <= 0) return null;
            Wait(Libc.POLLIN, timeoutMs < 0 ? -1 : (int)Math.Max(1, left / 1000000));
        }
    }

    public Dictionary<string, object> Poll() {
        return Receive(0);
    }

    // Fields of a message, type-checked: the error names the message and the field.

    static object Get(Dictionary<string, object> m, string name) {
        object v;
        return m.TryGetValue(name, out v) ? v : null;
    }

    public static string Type(Dictionary<string, object> m) {
        return (string)Get(m, "type");
    }

    static object Field(Dictionary<string, object> m, string name, bool required) {
        if (!m.ContainsKey(name)) {
            if (required) throw KitException.Protocol(Type(m) + " message field '" + name + "' is missing");
            return null;
        }
        return m[name];
    }

    static KitException WrongType(Dictionary<string, object> m, string name) {
        return KitException.Protocol(Type(m) + " message field '" + name + "' has the wrong type");
    }

    public static string Text(Dictionary<string, object> m, string name, string fallback) {
        object v = Field(m, name, fallback == null);
        if (v == null && fallback != null) return fallback;
        if (!(v is string)) throw WrongType(m, name);
        return (string)v;
    }

    public static long Integer(Dictionary<string, object> m, string name, long? fallback) {
        object v = Field(m, name, fallback == null);
        if (v == null && fallback != null) return fallback.Value;
        if (!(v is long)) throw WrongType(m, name);
        return (long)v;
    }

    public static double Number(Dictionary<string, object> m, string name, double? fallback) {
        object v = Field(m, name, fallback == null);
        if (v == null && fallback != null) return fallback.Value;
        if (v is long) return (long)v;
        if (!(v is double)) throw WrongType(m, name);
        return (double)v;
    }

    public static bool Bool(Dictionary<string, object> m, string name, bool? fallback) {
        object v = Field(m, name, fallback == null);
        if (v == null && fallback != null) return fallback.Value;
        if (!(v is bool)) throw WrongType(m, name);
        return (bool)v;
    }

    public static Dictionary<string, object> Object(Dictionary<string, object> m, string name, bool required) {
        object v = Field(m, name, required);
        if (v == null && !required) return new Dictionary<string, object>();
        var o = v as Dictionary<string, object>;
        if (o == null) throw WrongType(m, name);
        return o;
    }

    public static List<object> List(Dictionary<string, object> m, string name) {
        var o = Field(m, name, true) as List<object>;
        if (o == null) throw WrongType(m, name);
        return o;
    }
}
}
