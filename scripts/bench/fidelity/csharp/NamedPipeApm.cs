// S0's named-pipe program, as .NET's documentation for System.IO.Pipes shows overlapped I/O:
// NamedPipeServerStream / NamedPipeClientStream opened with PipeOptions.Asynchronous, and the
// asynchronous programming model, each BeginWrite / BeginRead started from the callback of the
// one before (learn.microsoft.com, "PipeStream.BeginRead", "Asynchronous Programming Model").
// Shares no code with kits/dotnet. On Linux the pipe is a Unix stream socket at PATH.
//   NamedPipeApm read PATH SECONDS SIZE [WARMUP]    the server: reads until the writer closes
//   NamedPipeApm write PATH SECONDS SIZE [WARMUP]   the client: writes SIZE-byte buffers for SECONDS
// The reader prints "mb_per_sec=... bytes=... seconds=..." from its first byte to the end; with
// WARMUP it starts counting WARMUP seconds after its first byte (the writer writes that much
// longer), so a runtime's start (JIT, thread pool growth) is left out as ipchost leaves it out.
using System;
using System.Diagnostics;
using System.IO.Pipes;
using System.Threading;

static class NamedPipeApm {
    static readonly ManualResetEvent Done = new ManualResetEvent(false);
    static PipeStream pipe;
    static byte[] buffer;
    static long bytes;
    static Stopwatch clock;
    static double seconds, warmup;
    static Stopwatch since;

    static void OnRead(IAsyncResult ar) {
        int n = pipe.EndRead(ar);
        if (n == 0) {
            Done.Set();
            return;
        }
        if (since == null) since = Stopwatch.StartNew();
        if (clock == null && since.Elapsed.TotalSeconds >= warmup) clock = Stopwatch.StartNew();
        if (clock != null) bytes += n;
        pipe.BeginRead(buffer, 0, buffer.Length, OnRead, null);
    }

    static void OnWrite(IAsyncResult ar) {
        pipe.EndWrite(ar);
        if (clock.Elapsed.TotalSeconds >= seconds + warmup) {
            Done.Set();
            return;
        }
        pipe.BeginWrite(buffer, 0, buffer.Length, OnWrite, null);
    }

    static int Main(string[] args) {
        if (args.Length != 4 && args.Length != 5) {
            Console.Error.WriteLine("usage: NamedPipeApm read|write PATH SECONDS SIZE [WARMUP]");
            return 2;
        }
        seconds = double.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture);
        buffer = new byte[int.Parse(args[3])];
        warmup = args.Length == 5 ? double.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture) : 0;
        if (args[0] == "read") {
            var server = new NamedPipeServerStream(args[1], PipeDirection.In, 1, PipeTransmissionMode.Byte,
                                                   PipeOptions.Asynchronous);
            server.WaitForConnection();
            pipe = server;
            pipe.BeginRead(buffer, 0, buffer.Length, OnRead, null);
            Done.WaitOne();
            double s = clock == null ? 0 : clock.Elapsed.TotalSeconds;
            Console.WriteLine("mb_per_sec={0:F1} bytes={1} seconds={2:F3}", s > 0 ? bytes / s / 1e6 : 0, bytes, s);
        } else {
            var client = new NamedPipeClientStream(".", args[1], PipeDirection.Out, PipeOptions.Asynchronous);
            client.Connect(10000);
            pipe = client;
            clock = Stopwatch.StartNew();
            pipe.BeginWrite(buffer, 0, buffer.Length, OnWrite, null);
            Done.WaitOne();
        }
        pipe.Dispose();
        return 0;
    }
}
