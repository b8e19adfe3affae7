using System;
using System.Runtime.InteropServices;

namespace IpcBench.Kit {
/// <summary>
/// The libc calls the .NET class library has no word for: the control socket's descriptor, FIFO
/// opens by the data plane's rules, F_SETPIPE_SZ, the thread's CPU time and CPU, pinning, the
/// monotonic clock in nanoseconds and the queues. P/Invoke, so the kit needs no native library of
/// its own (the Java kit's JNI library does this for the JVM).
/// </summary>
static unsafe class Libc {
    public const int O_RDONLY = 0, O_WRONLY = 1, O_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
    public const int F_GETFL = 3, F_SETFL = 4, F_SETPIPE_SZ = 1031, F_GETPIPE_SZ = 1032;
    public const int EINTR = 4, EAGAIN = 11, ENXIO = 6, ENOENT = 2, EPIPE = 32, EIDRM = 43, EINVAL = 22,
                     ENOMSG = 42, ETIMEDOUT = 110, EEXIST = 17;
    public const short POLLIN = 1, POLLOUT = 4;
    const int CLOCK_MONOTONIC = 1, CLOCK_REALTIME = 0, RUSAGE_THREAD = 1, RUSAGE_SELF = 0;

    [StructLayout(LayoutKind.Sequential)]
    public struct PollFd {
        public int fd;
        public short events;
        public short revents;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Timespec {
        public long sec;
        public long nsec;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Rusage {
        public long utime_sec, utime_usec, stime_sec, stime_usec;
        public long maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock, msgsnd,
            msgrcv, nsignals, nvcsw, nivcsw;
    }

    [DllImport("libc", SetLastError = true)] public static extern IntPtr read(int fd, byte* buf, IntPtr n);
    [DllImport("libc", SetLastError = true)] public static extern IntPtr write(int fd, byte* buf, IntPtr n);
    [DllImport("libc", SetLastError = true)] public static extern int poll([In, Out] PollFd[] fds, UIntPtr n, int timeoutMs);
    [DllImport("libc", SetLastError = true)] public static extern int close(int fd);
    [DllImport("libc")] static extern void _exit(int status);

    /// <summary>
    /// Ends the worker now. Mono's own shutdown first suspends every other thread, and one in
    /// the middle of compiling a method (the prepare thread, a loop's first call) is not
    /// suspended until the compile ends: on a loaded machine a worker told to stop after a
    /// garbage frame took more than 3 s to exit. Nothing of the kit waits for a finalizer: every
    /// endpoint is closed and every answer written (by write(2)) before this is called.
    /// </summary>
    public static void Exit(int status) {
        Console.Out.Flush();
        Console.Error.Flush();
        _exit(status);
    }
    [DllImport("libc", SetLastError = true)] public static extern int open(string path, int flags, int mode);
    [DllImport("libc", SetLastError = true)] public static extern int mkfifo(string path, uint mode);
    [DllImport("libc", SetLastError = true)] public static extern int chmod(string path, uint mode);
    [DllImport("libc", SetLastError = true)] public static extern int fcntl(int fd, int cmd, int arg);
    [DllImport("libc", SetLastError = true)] static extern int clock_gettime(int clock, out Timespec ts);
    [DllImport("libc", SetLastError = true)] static extern int getrusage(int who, out Rusage usage);
    [DllImport("libc", SetLastError = true)] public static extern int sched_getcpu();
    [DllImport("libc", SetLastError = true)] public static extern int gettid();
    [DllImport("libc", SetLastError = true)] public static extern int getpid();
    [DllImport("libc", SetLastError = true)] static extern int sched_setaffinity(int tid, IntPtr size, ulong[] mask);
    [DllImport("libc")] public static extern int usleep(uint micros);
    [DllImport("libc")] public static extern int memcmp(byte* a, byte* b, IntPtr n);
    [DllImport("libc")] static extern IntPtr strerror(int error);
    [DllImport("libc", SetLastError = true)] static extern IntPtr signal(int sig, IntPtr handler);

    // The socket under a PipeStream (System.IO.Pipes has no buffer-size property on Unix)
    public const int SOL_SOCKET = 1, SO_SNDBUF = 7, SO_RCVBUF = 8;
    [DllImport("libc", SetLastError = true)] public static extern int setsockopt(int fd, int level, int name, ref int value, uint len);
    [DllImport("libc", SetLastError = true)] public static extern int getsockopt(int fd, int level, int name, out int value, ref uint len);

    // System V queues
    [DllImport("libc", SetLastError = true)] public static extern int msgget(int key, int flags);
    [DllImport("libc", SetLastError = true)] public static extern int msgsnd(int id, byte* msg, IntPtr size, int flags);
    [DllImport("libc", SetLastError = true)] public static extern IntPtr msgrcv(int id, byte* msg, IntPtr size, long type, int flags);
    [DllImport("libc", SetLastError = true)] public static extern int msgctl(int id, int cmd, byte* buf);

    // POSIX queues (in libc since glibc 2.34)
    [DllImport("libc", SetLastError = true)] public static extern int mq_open(string name, int flags, uint mode, long* attr);
    [DllImport("libc", SetLastError = true)] public static extern int mq_close(int q);
    [DllImport("libc", SetLastError = true)] public static extern int mq_unlink(string name);
    [DllImport("libc", SetLastError = true)] public static extern int mq_getattr(int q, long* attr);
    [DllImport("libc", SetLastError = true)] public static extern int mq_send(int q, byte* msg, IntPtr size, uint prio);
    [DllImport("libc", SetLastError = true)] public static extern IntPtr mq_timedreceive(int q, byte* msg, IntPtr size, uint* prio, ref Timespec at);
    /// <summary>mq_receive: no deadline, so the kernel arms no timer when the queue is empty.</summary>
    [DllImport("libc", SetLastError = true)] public static extern IntPtr mq_receive(int q, byte* msg, IntPtr size, uint* prio);

    public static int Errno() {
        return Marshal.GetLastWin32Error();
    }

    public static string Error(int error) {
        return Marshal.PtrToStringAnsi(strerror(error));
    }

    /// <summary>CLOCK_MONOTONIC in ns: the clock the data plane's paced timestamps use.</summary>
    public static long Now() {
        Timespec ts;
        clock_gettime(CLOCK_MONOTONIC, out ts);
        return ts.sec * 1000000000L + ts.nsec;
    }

    public static Timespec RealtimeIn(long ns) {
        Timespec ts;
        clock_gettime(CLOCK_REALTIME, out ts);
        long at = ts.sec * 1000000000L + ts.nsec + ns;
        ts.sec = at / 1000000000L;
        ts.nsec = at % 1000000000L;
        return ts;
    }

    public static Rusage ThreadUsage() {
        Rusage r;
        getrusage(RUSAGE_THREAD, out r);
        return r;
    }

    public static Rusage ProcessUsage() {
        Rusage r;
        getrusage(RUSAGE_SELF, out r);
        return r;
    }

    /// <summary>Pins every thread of this process (the runtime's GC, JIT and pool threads too).</summary>
    public static void PinProcess(int cpu) {
        if (cpu < 0 || cpu >= 1024) throw new KitException(KitException.E_INVALID, "CPU " + cpu + " is out of range");
        var mask = new ulong[16];
        mask[cpu / 64] = 1UL << (cpu % 64);
        foreach (string task in System.IO.Directory.GetDirectories("/proc/self/task")) {
            int tid;
            if (!int.TryParse(System.IO.Path.GetFileName(task), out tid)) continue;
            if (sched_setaffinity(tid, (IntPtr)(mask.Length * 8), mask) != 0) {
                int e = Errno();
                if (e == 3) continue; // ESRCH: the thread ended meanwhile
                throw new KitException(KitException.E_INVALID, "sched_setaffinity: " + Error(e));
            }
        }
    }

    public static void IgnoreSigpipe() {
        signal(13, (IntPtr)1); // SIG_IGN: a closed peer is EPIPE, not death
    }

    public static KitException Failure(string what, int error) {
        return new KitException(error == EPIPE ? KitException.E_CLOSED : KitException.E_SYSTEM,
                                what + ": " + Error(error));
    }
}
}
