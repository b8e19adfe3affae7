using System;

namespace IpcBench.Kit {
/// <summary>A request that failed; Status is one of the status codes of transport.h.</summary>
public class KitException : Exception {
    public const int OK = 0, E_TIMEOUT = -1, E_CLOSED = -2, E_INVALID = -4, E_UNKNOWN_OPTION = -5,
                     E_BAD_OPTION = -6, E_BAD_ADDRESS = -7, E_TOO_BIG = -8, E_UNSUPPORTED = -9,
                     E_SYSTEM = -11, E_INTERNAL = -12;
    public readonly int Status;

    public KitException(int status, string message) : base(message) {
        Status = status;
    }

    /// <summary>The orchestrator sent something this worker cannot read.</summary>
    public static KitException Protocol(string message) {
        return new KitException(E_INVALID, message);
    }
}

/// <summary>A deadline passed (the unreliable loops poll with it).</summary>
public sealed class TimedOut : Exception {
    public TimedOut(string what) : base(what) {}
}

/// <summary>The orchestrator closed the control channel.</summary>
public sealed class ChannelClosed : Exception {
    public ChannelClosed() : base("the orchestrator closed the control channel") {}
}
}
