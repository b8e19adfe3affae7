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

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--runtime-version")) {
            System.out.println(Session.runtimeName());
            return;
        }
        if (args.length != 2 || !args[0].equals("--control-socket") || !args[1].equals("stdin")) {
            System.err.println("usage: ipcbench-java-worker --control-socket FD (ipchost starts this worker: "
                    + "ipchost --impl java ...; docs/worker-protocol.md)");
            System.exit(2);
        }
        Channel inherited = System.inheritedChannel();
        if (!(inherited instanceof SocketChannel)) {
            System.err.println("ipcbench-java-worker: standard input is not the control socket ("
                    + inherited + "); start it through ipchost");
            System.exit(2);
        }
        System.exit(new Session((SocketChannel) inherited, System.getProperty("ipcbench.kit.name", "java")).serve());
    }
}
