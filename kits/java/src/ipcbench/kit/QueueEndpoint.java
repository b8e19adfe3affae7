package ipcbench.kit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * mq.sysv and mq.posix through the kit's JNI library, one call a message (msgsnd/msgrcv,
 * mq_send/mq_receive), the way the Java write-up reached its System V queue. Both carry one
 * message a receive, reliably, one way per queue.
 */
abstract class QueueEndpoint extends Endpoint {
    final boolean creator;
    final boolean writes;

    QueueEndpoint(Transports.Spec spec) throws KitException {
        if (Transports.BOTH.equals(spec.direction))
            throw new KitException(KitException.E_UNSUPPORTED, "a queue carries data one way, not both");
        Native.require(spec.transport);
        creator = spec.creator();
        writes = Transports.SEND.equals(spec.direction);
    }

    static Endpoint open(Transports.Spec spec) throws IOException, KitException {
        return "mq.sysv".equals(spec.transport) ? new Sysv(spec) : new Posix(spec);
    }

    @Override
    public boolean stream() {
        return false;
    }

    @Override
    public void connect(long timeoutNs) throws KitException {}

    static String readProc(String path) {
        try {
            return Usage.readProc(path).trim();
        } catch (IOException e) {
            return "";
        }
    }

    static long procNumber(String path) {
        try {
            return Long.parseLong(readProc(path));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** mq.sysv: msgget(IPC_PRIVATE), address sysv:ID, mtype 1, IPC_RMID by the creator. */
    static final class Sysv extends QueueEndpoint {
        private int id;
        private final ByteBuffer scratch; // mtype, then mtext
        private final int max;

        Sysv(Transports.Spec spec) throws KitException {
            super(spec);
            Transports.checkOptions(spec, Set.of("queue_bytes"), Map.of());
            long msgmax = procNumber("/proc/sys/kernel/msgmax");
            if (msgmax > 0 && spec.maxMessage > msgmax)
                throw new KitException(KitException.E_TOO_BIG, "mq.sysv: a message of " + spec.maxMessage
                        + " B exceeds kernel.msgmax=" + msgmax + "; raise it with sysctl -w kernel.msgmax="
                        + spec.maxMessage);
            max = (int) Math.max(8, spec.maxMessage);
            scratch = ByteBuffer.allocateDirect(8 + max).order(ByteOrder.nativeOrder());
            scratch.putLong(0, 1); // mtype 1
            if (creator) {
                id = Native.msgget0();
                Native.check("msgget", id);
                String bytes = spec.options.getOrDefault("queue_bytes", "");
                if (!bytes.isEmpty()) {
                    int n = Transports.parseBytes("queue_bytes", bytes);
                    long r = Native.msgQueueBytes0(id, n);
                    if (r < 0) {
                        close();
                        throw Native.failure(KitException.E_BAD_OPTION, "option queue_bytes=" + n
                                + ": msgctl(IPC_SET) (above kernel.msgmnb needs root)", (int) r);
                    }
                }
            } else {
                String a = spec.address;
                int parsed = -1;
                if (a.startsWith("sysv:") && a.length() > 5 && a.length() < 16 && a.substring(5).chars().allMatch(Character::isDigit))
                    parsed = Integer.parseInt(a.substring(5));
                if (parsed < 0)
                    throw new KitException(KitException.E_BAD_ADDRESS, "mq.sysv address '" + a + "' is not sysv:ID");
                id = parsed;
            }
        }

        @Override
        public String sendCall() {
            return "msgsnd (JNI)";
        }

        @Override
        public String recvCall() {
            return "msgrcv (JNI)";
        }

        @Override
        public String export() {
            return "sysv:" + id;
        }

        @Override
        public void connect(long timeoutNs) throws KitException {
            if (Native.msgQueueBytes0(id, 0) < 0)
                throw new KitException(KitException.E_CLOSED, "mq.sysv: queue " + id + " is gone");
        }

        private KitException gone(int r) {
            if (r == -43 /* EIDRM */ || r == -22 /* EINVAL */)
                return new KitException(KitException.E_CLOSED, "mq.sysv: the queue was removed by its creator");
            return Native.failure(KitException.E_SYSTEM, "mq.sysv", r);
        }

        @Override
        public void send(ByteBuffer buf) throws KitException {
            int n = buf.remaining();
            scratch.put(8, buf, buf.position(), n);
            int r = Native.msgsnd0(id, scratch, n);
            if (r < 0) throw gone(r);
            buf.position(buf.limit());
        }

        @Override
        public int recv(ByteBuffer buf, long timeoutNs) throws KitException, TimedOut {
            long deadline = Transports.deadlineOf(timeoutNs);
            while (true) {
                int r = Native.msgrcv0(id, scratch, max, timeoutNs >= 0);
                if (r >= 0) {
                    int n = Math.min(r, buf.remaining());
                    buf.put(buf.position(), scratch, 8, n);
                    buf.position(buf.position() + n);
                    return r;
                }
                if (r == -7 /* E2BIG */)
                    throw new KitException(-3, "mq.sysv: a message larger than " + max + " B");
                if (r != -42 /* ENOMSG */) throw gone(r);
                if (Transports.leftOf(deadline) == 0) throw new TimedOut("mq.sysv: nothing to receive");
                Thread.onSpinWait();
            }
        }

        @Override
        public Map<String, String> settings() {
            Map<String, String> out = new LinkedHashMap<>();
            out.put("kernel.msgmax", readProc("/proc/sys/kernel/msgmax"));
            out.put("kernel.msgmnb", readProc("/proc/sys/kernel/msgmnb"));
            long q = Native.msgQueueBytes0(id, 0);
            if (q >= 0) out.put("queue_bytes", Long.toString(q));
            return out;
        }

        @Override
        public void close() {
            if (creator && id >= 0) Native.msgRemove0(id);
            id = -1;
        }
    }

    /** mq.posix: a fresh /ipcbench-PID-java-RANDOM name, O_CREAT|O_EXCL 0600, unlinked on close. */
    static final class Posix extends QueueEndpoint {
        private int q = -1;
        private String name;
        private final int msgsize;
        private final ByteBuffer scratch;

        Posix(Transports.Spec spec) throws KitException {
            super(spec);
            Transports.checkOptions(spec, Set.of("maxmsg"), Map.of());
            if (creator) {
                long maxmsg = 10;
                String v = spec.options.getOrDefault("maxmsg", "");
                if (!v.isEmpty()) {
                    maxmsg = v.length() < 10 && v.chars().allMatch(Character::isDigit) ? Long.parseLong(v) : 0;
                    if (maxmsg < 1)
                        throw new KitException(KitException.E_BAD_OPTION, "option maxmsg=" + v + ": expected a whole number >= 1");
                }
                long size = spec.maxMessage > 0 ? spec.maxMessage : 8192;
                byte[] random = new byte[4];
                new SecureRandom().nextBytes(random);
                name = String.format("/ipcbench-%d-java-%02x%02x%02x%02x", ProcessHandle.current().pid(),
                        random[0], random[1], random[2], random[3]);
                q = Native.mqOpen0(name, writes, true, maxmsg, size);
                if (q == -22 || q == -24 || q == -12) // EINVAL, EMFILE, ENOMEM: over the limits
                    throw new KitException(KitException.E_TOO_BIG, "mq.posix: a queue of " + maxmsg + " messages of "
                            + size + " B exceeds fs.mqueue.msgsize_max=" + readProc("/proc/sys/fs/mqueue/msgsize_max")
                            + " or fs.mqueue.msg_max=" + readProc("/proc/sys/fs/mqueue/msg_max")
                            + "; raise them with sysctl -w fs.mqueue.msgsize_max=" + size + " (root may exceed them)");
                if (q < 0) throw Native.failure(KitException.E_SYSTEM, "mq_open " + name, q);
            } else {
                name = spec.address;
                if (!name.startsWith("/") || name.length() > 255)
                    throw new KitException(KitException.E_BAD_ADDRESS, "mq.posix address '" + name
                            + "' is not a queue name (/name)");
                q = Native.mqOpen0(name, writes, false, 0, 0);
                if (q < 0) throw Native.failure(KitException.E_BAD_ADDRESS, "mq.posix: cannot open queue '" + name + "'", q);
            }
            long[] attr = new long[3];
            Native.mqAttributes0(q, attr);
            msgsize = (int) attr[1];
            if (spec.maxMessage > msgsize) {
                close();
                throw new KitException(KitException.E_TOO_BIG, "mq.posix: the queue takes messages up to "
                        + msgsize + " B, not " + spec.maxMessage);
            }
            scratch = ByteBuffer.allocateDirect(msgsize);
        }

        @Override
        public String sendCall() {
            return "mq_send (JNI)";
        }

        @Override
        public String recvCall() {
            return "mq_receive (JNI)";
        }

        @Override
        public String export() {
            return name;
        }

        @Override
        public void send(ByteBuffer buf) throws KitException {
            int r;
            if (buf.isDirect() && buf.position() == 0) {
                r = Native.mqSend0(q, buf, buf.remaining());
            } else {
                scratch.put(0, buf, buf.position(), buf.remaining());
                r = Native.mqSend0(q, scratch, buf.remaining());
            }
            if (r < 0) throw Native.failure(KitException.E_SYSTEM, "mq_send", r);
            buf.position(buf.limit());
        }

        @Override
        public int recv(ByteBuffer buf, long timeoutNs) throws KitException, TimedOut {
            int r = Native.mqReceive0(q, scratch, msgsize, timeoutNs);
            if (r == -110 /* ETIMEDOUT */) throw new TimedOut("mq.posix: nothing to receive");
            if (r < 0) throw Native.failure(KitException.E_SYSTEM, "mq_receive", r);
            int n = Math.min(r, buf.remaining());
            buf.put(buf.position(), scratch, 0, n);
            buf.position(buf.position() + n);
            return r;
        }

        @Override
        public Map<String, String> settings() {
            long[] attr = new long[3];
            Native.mqAttributes0(q, attr);
            Map<String, String> out = new LinkedHashMap<>();
            out.put("maxmsg", Long.toString(attr[0]));
            out.put("msgsize", Long.toString(attr[1]));
            out.put("fs.mqueue.msg_max", readProc("/proc/sys/fs/mqueue/msg_max"));
            out.put("fs.mqueue.msgsize_max", readProc("/proc/sys/fs/mqueue/msgsize_max"));
            return out;
        }

        @Override
        public void close() {
            if (q >= 0) Native.mqClose0(q);
            q = -1;
            if (creator && name != null) Native.mqUnlink0(name);
            name = null;
        }
    }
}
