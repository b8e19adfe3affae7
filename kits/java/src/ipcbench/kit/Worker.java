package ipcbench.kit;

import java.nio.channels.Channel;
import java.nio.channels.SocketChannel;

/**
 * The Java kit's worker: ipchost starts it (through the ipcbench-java-worker script, which
 * moves the control socket to standard input) for a side run with --impl java
 * (docs/worker-protocol.md).
 */
public final class Worker {
    private Worker() {}

    /**
     * Loads and initializes what the loops use while the session is set up: a fresh JVM loads
     * a class on first use, and the management beans behind Usage and the GC figures take tens
     * of milliseconds to start. A receive loop that starts that much after its sender (a UDP
     * receiver, whose datagrams do not wait) loses what was sent meanwhile.
     */
    static void prepare() {
        new Usage().stop();
        Run.gcTotals();
        Usage.maxRssKib();
        Usage.threadId();
        for (String name : new String[] {"Loops", "Loops$Reader", "Loops$Tally", "Loops$Progress", "Loops$Job",
                "DataPlane", "DataPlane$Pattern", "DataPlane$Histogram", "DataPlane$SequenceTracker",
                "DataPlane$SendSchedule", "DataPlane$Step", "LoopResult", "Run", "Run$Task", "Run$Intervals", "CaseSettings"}) {
            try {
                Class.forName("ipcbench.kit." + name, true, Worker.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e); // renamed: update the list
            }
        }
        new DataPlane.Histogram().toJson();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--runtime-version")) {
            System.out.println(Session.runtimeName());
            return;
        }
        String name = System.getProperty("ipcbench.kit.name", "java");
        if (args.length == 4 && args[0].equals("--api") && args[1].equals("streams")) {
            StreamsEndpoint.use();
            name += ":streams"; // it names itself as ipchost named it: KIT:API
            args = new String[] {args[2], args[3]};
        }
        if (args.length != 2 || !args[0].equals("--control-socket") || !args[1].equals("stdin")) {
            System.err.println("usage: ipcbench-java-worker [--api streams] --control-socket FD (ipchost starts "
                    + "this worker: ipchost --impl java ...; docs/worker-protocol.md)");
            System.exit(2);
        }
        Thread prepare = new Thread(Worker::prepare, "prepare");
        prepare.setDaemon(true);
        prepare.start();
        Channel inherited = System.inheritedChannel();
        if (!(inherited instanceof SocketChannel)) {
            System.err.println("ipcbench-java-worker: standard input is not the control socket ("
                    + inherited + "); start it through ipchost");
            System.exit(2);
        }
        System.exit(new Session((SocketChannel) inherited, name).serve());
    }
}
