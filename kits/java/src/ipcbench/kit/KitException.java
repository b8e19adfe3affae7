package ipcbench.kit;

/** A request that failed; {@code status} is one of the status codes of transport.h. */
public class KitException extends Exception {
    private static final long serialVersionUID = 1L;
    // The status codes, from the protocol's definition (ProtocolGenerated).
    public static final int OK = ProtocolGenerated.OK;
    public static final int E_TIMEOUT = ProtocolGenerated.E_TIMEOUT;
    public static final int E_CLOSED = ProtocolGenerated.E_CLOSED;
    public static final int E_INVALID = ProtocolGenerated.E_INVALID;
    public static final int E_UNKNOWN_OPTION = ProtocolGenerated.E_UNKNOWN_OPTION;
    public static final int E_BAD_OPTION = ProtocolGenerated.E_BAD_OPTION;
    public static final int E_BAD_ADDRESS = ProtocolGenerated.E_BAD_ADDRESS;
    public static final int E_TOO_BIG = ProtocolGenerated.E_TOO_BIG;
    public static final int E_UNSUPPORTED = ProtocolGenerated.E_UNSUPPORTED;
    public static final int E_SYSTEM = ProtocolGenerated.E_SYSTEM;
    public static final int E_INTERNAL = ProtocolGenerated.E_INTERNAL;

    public final int status;

    public KitException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The orchestrator sent something this worker cannot read. */
    public static KitException protocol(String message) {
        return new KitException(E_INVALID, message);
    }

    /** A deadline passed. */
    public static KitException timeout(String message) {
        return new KitException(E_TIMEOUT, message);
    }
}
