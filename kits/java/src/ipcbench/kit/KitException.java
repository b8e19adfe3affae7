package ipcbench.kit;

/** A request that failed; {@code status} is one of the status codes of transport.h. */
public class KitException extends Exception {
    private static final long serialVersionUID = 1L;
    public static final int OK = 0;
    public static final int E_TIMEOUT = -1;
    public static final int E_CLOSED = -2;
    public static final int E_INVALID = -4;
    public static final int E_UNKNOWN_OPTION = -5;
    public static final int E_BAD_OPTION = -6;
    public static final int E_BAD_ADDRESS = -7;
    public static final int E_TOO_BIG = -8;
    public static final int E_UNSUPPORTED = -9;
    public static final int E_SYSTEM = -11;
    public static final int E_INTERNAL = -12;

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
