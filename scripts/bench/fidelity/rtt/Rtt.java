// A Java request–response pair on TCP, written the two ways the JDK's documentation shows a
// client and a server. Shares no code with kits/java. TCP_NODELAY set, as a request–response
// program sets it.
//   nio      ServerSocketChannel / SocketChannel, blocking: write(ByteBuffer) of each request,
//            read(ByteBuffer) until its reply is whole ("Non-blocking and blocking channels" in
//            java.nio.channels' documentation): what the default `--impl java` is compared with.
//   streams  ServerSocket / Socket with DataOutputStream(BufferedOutputStream).write + flush and
//            DataInputStream(BufferedInputStream).readFully ("All About Sockets" in The Java
//            Tutorials): what `--impl java:streams` is compared with.
// Run as a source file:
//   java Rtt.java serve PORTFILE SIZE nio|streams          echoes until EOF
//   java Rtt.java ping PORT COUNT SIZE WARMUP nio|streams  prints "p50_ns=... p99_ns=... trips=..."
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

public final class Rtt {
    interface Trip {
        boolean run() throws Exception; // false: the peer closed
    }

    static Trip nio(SocketChannel ch, int size, boolean echo) throws Exception {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ByteBuffer buf = ByteBuffer.allocate(size);
        return () -> {
            if (!echo) {
                buf.clear();
                while (buf.hasRemaining()) ch.write(buf);
            }
            buf.clear();
            while (buf.hasRemaining())
                if (ch.read(buf) < 0) return false;
            if (echo) {
                buf.flip();
                while (buf.hasRemaining()) ch.write(buf);
            }
            return true;
        };
    }

    static Trip streams(Socket s, int size, boolean echo) throws Exception {
        s.setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        byte[] buf = new byte[size];
        return () -> {
            if (!echo) {
                out.write(buf);
                out.flush();
            }
            try {
                in.readFully(buf);
            } catch (EOFException e) {
                return false;
            }
            if (echo) {
                out.write(buf);
                out.flush();
            }
            return true;
        };
    }

    public static void main(String[] args) throws Exception {
        String how = args[args.length - 1];
        if (args[0].equals("serve")) {
            int size = Integer.parseInt(args[2]);
            Trip echo;
            if (how.equals("nio")) {
                ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                Files.writeString(Path.of(args[1]), Integer.toString(((InetSocketAddress) server.getLocalAddress()).getPort()));
                echo = nio(server.accept(), size, true);
            } else {
                ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
                Files.writeString(Path.of(args[1]), Integer.toString(server.getLocalPort()));
                echo = streams(server.accept(), size, true);
            }
            while (echo.run()) {}
            return;
        }
        int port = Integer.parseInt(args[1]), count = Integer.parseInt(args[2]), size = Integer.parseInt(args[3]);
        long warmupNs = (long) (Double.parseDouble(args[4]) * 1e9);
        Trip trip = how.equals("nio") ? nio(SocketChannel.open(new InetSocketAddress("127.0.0.1", port)), size, false)
                                      : streams(new Socket("127.0.0.1", port), size, false);
        for (long end = System.nanoTime() + warmupNs; System.nanoTime() < end;) trip.run();
        long[] trips = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            trip.run();
            trips[i] = System.nanoTime() - start;
        }
        Arrays.sort(trips);
        System.out.printf("p50_ns=%d p99_ns=%d trips=%d%n", trips[count / 2], trips[count * 99 / 100], count);
        System.exit(0);
    }
}
