using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;

namespace IpcBench.Kit {
/// <summary>
/// mq.sysv and mq.posix through P/Invoke, one libc call a message (msgsnd/msgrcv,
/// mq_send/mq_timedreceive). Both carry one message a receive, reliably, one way per queue.
/// </summary>
abstract class QueueEndpoint : Endpoint {
    protected readonly bool creator, writes;

    protected QueueEndpoint(Spec spec) {
        if (spec.Direction == Transports.BOTH) throw new KitException(KitException.E_UNSUPPORTED, "a queue carries data one way, not both");
        creator = spec.Creator;
        writes = spec.Direction == Transports.SEND;
    }

    public override bool Stream {
        get { return false; }
    }

    public override void Connect(long timeoutNs) {}

    protected static string Proc(string path) {
        try {
            return File.ReadAllText(path).Trim();
        } catch (IOException) {
            return "";
        }
    }

    protected static KitException Failure(int status, string what, int error) {
        return new KitException(status, what + ": " + Libc.Error(error));
    }
}

/// <summary>mq.sysv: msgget(IPC_PRIVATE), address sysv:ID, mtype 1, IPC_RMID by the creator.</summary>
sealed unsafe class SysvQueueEndpoint : QueueEndpoint {
    const int IPC_CREAT = 512, IPC_NOWAIT = 2048, IPC_RMID = 0, IPC_SET = 1, IPC_STAT = 2;
    // struct msqid_ds on 64-bit Linux: ipc_perm (48), three times (24), __msg_cbytes (8), msg_qnum (8),
    // then msg_qbytes (offsetof gives 88; 80 is msg_qnum, which IPC_SET ignores and a report misreads).
    const int QbytesOffset = 88;
    int id;
    readonly byte[] scratch; // mtype, then mtext
    readonly int max;

    public SysvQueueEndpoint(Spec spec) : base(spec) {
        Transports.CheckOptions(spec, new[] { "queue_bytes" }, null);
        long msgmax;
        if (long.TryParse(Proc("/proc/sys/kernel/msgmax"), out msgmax) && spec.MaxMessage > msgmax)
            throw new KitException(KitException.E_TOO_BIG, "mq.sysv: a message of " + spec.MaxMessage + " B exceeds kernel.msgmax=" +
                                   msgmax + "; raise it with sysctl -w kernel.msgmax=" + spec.MaxMessage);
        max = (int)Math.Max(8, spec.MaxMessage);
        scratch = new byte[8 + max];
        DataPlane.PutLong(scratch, 0, 1); // mtype 1
        if (creator) {
            id = Libc.msgget(0 /* IPC_PRIVATE */, IPC_CREAT | Convert.ToInt32("600", 8));
            if (id < 0) throw Failure(KitException.E_SYSTEM, "msgget", Libc.Errno());
            if (spec.Option("queue_bytes").Length > 0) {
                int n = Transports.ParseBytes("queue_bytes", spec.Option("queue_bytes"));
                if (QueueBytes(n) < 0) {
                    int e = Libc.Errno();
                    Close();
                    throw Failure(KitException.E_BAD_OPTION, "option queue_bytes=" + n + ": msgctl(IPC_SET) (above kernel.msgmnb needs root)", e);
                }
            }
        } else {
            string a = spec.Address;
            int parsed = -1;
            if (a.StartsWith("sysv:") && a.Length > 5 && a.Length < 16 && a.Substring(5).All(char.IsDigit)) parsed = int.Parse(a.Substring(5));
            if (parsed < 0) throw new KitException(KitException.E_BAD_ADDRESS, "mq.sysv address '" + a + "' is not sysv:ID");
            id = parsed;
        }
    }

    /// <summary>n &gt; 0 sets msg_qbytes; returns msg_qbytes, or -1 (errno).</summary>
    long QueueBytes(long n) {
        var ds = new byte[256];
        fixed (byte* p = ds) {
            if (Libc.msgctl(id, IPC_STAT, p) != 0) return -1;
            if (n > 0) {
                *(ulong*)(p + QbytesOffset) = (ulong)n;
                if (Libc.msgctl(id, IPC_SET, p) != 0) return -1;
            }
            return (long)*(ulong*)(p + QbytesOffset);
        }
    }

    public override string SendCall {
        get { return "msgsnd (P/Invoke)"; }
    }

    public override string RecvCall {
        get { return "msgrcv (P/Invoke)"; }
    }

    public override string Export() {
        return "sysv:" + id;
    }

    public override void Connect(long timeoutNs) {
        if (QueueBytes(0) < 0) throw new KitException(KitException.E_CLOSED, "mq.sysv: queue " + id + " is gone");
    }

    KitException Gone(int e) {
        if (e == Libc.EIDRM || e == Libc.EINVAL) return new KitException(KitException.E_CLOSED, "mq.sysv: the queue was removed by its creator");
        return Failure(KitException.E_SYSTEM, "mq.sysv", e);
    }

    public override void Send(byte[] buf, int offset, int count) {
        Buffer.BlockCopy(buf, offset, scratch, 8, count);
        fixed (byte* p = scratch) {
            while (Libc.msgsnd(id, p, (IntPtr)count, 0) != 0) {
                int e = Libc.Errno();
                if (e != Libc.EINTR) throw Gone(e);
            }
        }
    }

    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        long deadline = Transports.DeadlineOf(timeoutNs);
        fixed (byte* p = scratch) {
            while (true) {
                long r = (long)Libc.msgrcv(id, p, (IntPtr)max, 0, timeoutNs >= 0 ? IPC_NOWAIT : 0);
                if (r >= 0) {
                    Buffer.BlockCopy(scratch, 8, buf, offset, (int)Math.Min(r, count));
                    return (int)r;
                }
                int e = Libc.Errno();
                if (e == 7 /* E2BIG */) throw new KitException(-3, "mq.sysv: a message larger than " + max + " B");
                if (e == Libc.EINTR) continue;
                if (e != Libc.ENOMSG) throw Gone(e);
                if (Transports.LeftOf(deadline) == 0) throw new TimedOut("mq.sysv: nothing to receive");
                System.Threading.Thread.SpinWait(20);
            }
        }
    }

    public override Dictionary<string, string> Settings() {
        var o = new Dictionary<string, string> { { "kernel.msgmax", Proc("/proc/sys/kernel/msgmax") },
                                                 { "kernel.msgmnb", Proc("/proc/sys/kernel/msgmnb") } };
        long q = QueueBytes(0);
        if (q >= 0) o["queue_bytes"] = q.ToString();
        return o;
    }

    public override void Close() {
        if (creator && id >= 0) Libc.msgctl(id, IPC_RMID, null);
        id = -1;
    }
}

/// <summary>mq.posix: a fresh /ipcbench-PID-dotnet-RANDOM name, O_CREAT|O_EXCL 0600, unlinked on close.</summary>
sealed unsafe class PosixQueueEndpoint : QueueEndpoint {
    const int O_CREAT = 0x40, O_EXCL = 0x80;
    int q = -1;
    string name;
    readonly int msgsize;
    readonly byte[] scratch;

    public PosixQueueEndpoint(Spec spec) : base(spec) {
        Transports.CheckOptions(spec, new[] { "maxmsg" }, null);
        int flags = (writes ? Libc.O_WRONLY : Libc.O_RDONLY) | Libc.O_CLOEXEC;
        if (creator) {
            long maxmsg = 10;
            string v = spec.Option("maxmsg");
            if (v.Length > 0) {
                maxmsg = v.Length < 10 && v.All(char.IsDigit) ? long.Parse(v) : 0;
                if (maxmsg < 1) throw new KitException(KitException.E_BAD_OPTION, "option maxmsg=" + v + ": expected a whole number >= 1");
            }
            long size = spec.MaxMessage > 0 ? spec.MaxMessage : 8192;
            var random = new byte[4];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(random);
            name = "/ipcbench-" + Libc.getpid() + "-dotnet-" + BitConverter.ToString(random).Replace("-", "").ToLowerInvariant();
            long* attr = stackalloc long[8];
            attr[1] = maxmsg;
            attr[2] = size;
            q = Libc.mq_open(name, flags | O_CREAT | O_EXCL, Convert.ToUInt32("600", 8), attr);
            if (q < 0) {
                int e = Libc.Errno();
                if (e == Libc.EINVAL || e == 24 || e == 12) // EINVAL, EMFILE, ENOMEM: over the limits
                    throw new KitException(KitException.E_TOO_BIG, "mq.posix: a queue of " + maxmsg + " messages of " + size +
                                           " B exceeds fs.mqueue.msgsize_max=" + Proc("/proc/sys/fs/mqueue/msgsize_max") +
                                           " or fs.mqueue.msg_max=" + Proc("/proc/sys/fs/mqueue/msg_max") +
                                           "; raise them with sysctl -w fs.mqueue.msgsize_max=" + size + " (root may exceed them)");
                throw Failure(KitException.E_SYSTEM, "mq_open " + name, e);
            }
        } else {
            name = spec.Address;
            if (!name.StartsWith("/") || name.Length > 255)
                throw new KitException(KitException.E_BAD_ADDRESS, "mq.posix address '" + name + "' is not a queue name (/name)");
            q = Libc.mq_open(name, flags, 0, null);
            if (q < 0) throw Failure(KitException.E_BAD_ADDRESS, "mq.posix: cannot open queue '" + name + "'", Libc.Errno());
        }
        msgsize = (int)Attribute(2);
        if (spec.MaxMessage > msgsize) {
            Close();
            throw new KitException(KitException.E_TOO_BIG, "mq.posix: the queue takes messages up to " + msgsize + " B, not " + spec.MaxMessage);
        }
        scratch = new byte[msgsize];
    }

    long Attribute(int k) { // struct mq_attr: flags, maxmsg, msgsize, curmsgs
        long* attr = stackalloc long[8];
        Libc.mq_getattr(q, attr);
        return attr[k];
    }

    public override string SendCall {
        get { return "mq_send (P/Invoke)"; }
    }

    public override string RecvCall {
        get { return "mq_receive / mq_timedreceive (P/Invoke)"; }
    }

    public override string Export() {
        return name;
    }

    public override void Send(byte[] buf, int offset, int count) {
        fixed (byte* p = &buf[offset]) {
            while (Libc.mq_send(q, p, (IntPtr)count, 0) != 0) {
                int e = Libc.Errno();
                if (e != Libc.EINTR) throw Failure(KitException.E_SYSTEM, "mq_send", e);
            }
        }
    }

    public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
        // No deadline: mq_receive, as a program calls it. A far-future deadline made every
        // receive read the clock and the kernel arm a timer whenever it waited: 0.78 of a
        // program's mq_receive loop.
        // A buffer that holds the queue's largest message is received into straight; a smaller
        // one through the scratch buffer (the kernel refuses a buffer below mq_msgsize).
        Libc.Timespec at = timeoutNs < 0 ? new Libc.Timespec() : Libc.RealtimeIn(timeoutNs);
        bool direct = count >= msgsize;
        fixed (byte* s = scratch)
        fixed (byte* b = buf) {
            byte* p = direct ? b + offset : s;
            while (true) {
                long r = timeoutNs < 0 ? (long)Libc.mq_receive(q, p, (IntPtr)msgsize, null)
                                       : (long)Libc.mq_timedreceive(q, p, (IntPtr)msgsize, null, ref at);
                if (r >= 0) {
                    if (!direct) Buffer.BlockCopy(scratch, 0, buf, offset, (int)Math.Min(r, count));
                    return (int)r;
                }
                int e = Libc.Errno();
                if (e == Libc.EINTR) continue;
                if (e == Libc.ETIMEDOUT) throw new TimedOut("mq.posix: nothing to receive");
                throw Failure(KitException.E_SYSTEM, "mq_receive", e);
            }
        }
    }

    public override Dictionary<string, string> Settings() {
        return new Dictionary<string, string> { { "maxmsg", Attribute(1).ToString() }, { "msgsize", Attribute(2).ToString() },
                                                { "fs.mqueue.msg_max", Proc("/proc/sys/fs/mqueue/msg_max") },
                                                { "fs.mqueue.msgsize_max", Proc("/proc/sys/fs/mqueue/msgsize_max") } };
    }

    public override void Close() {
        if (q >= 0) Libc.mq_close(q);
        q = -1;
        if (creator && name != null) Libc.mq_unlink(name);
        name = null;
    }
}
}
