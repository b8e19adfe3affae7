using System;

namespace IpcBench.Kit {
/// <summary>A request that failed; Status is one of the status codes of transport.h.</summary>
public class KitException : Exception {
    // The status codes, from the protocol's definition (ProtocolGenerated).
    public const int OK = ProtocolGenerated.OK, E_TIMEOUT = ProtocolGenerated.E_TIMEOUT,
                     E_CLOSED = ProtocolGenerated.E_CLOSED, E_INVALID = ProtocolGenerated.E_INVALID,
                     E_UNKNOWN_OPTION = ProtocolGenerated.E_UNKNOWN_OPTION, E_BAD_OPTION = ProtocolGenerated.E_BAD_OPTION,
                     E_BAD_ADDRESS = ProtocolGenerated.E_BAD_ADDRESS, E_TOO_BIG = ProtocolGenerated.E_TOO_BIG,
                     E_UNSUPPORTED = ProtocolGenerated.E_UNSUPPORTED, E_SYSTEM = ProtocolGenerated.E_SYSTEM,
                     E_INTERNAL = ProtocolGenerated.E_INTERNAL;
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
