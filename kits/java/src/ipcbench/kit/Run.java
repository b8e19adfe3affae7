package ipcbench.kit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run message: the streams of the part this worker plays, each on a thread of its own
 * (one stream alone runs on the main thread), while the main thread serves the channel
 * (docs/worker-protocol.md, "During a run").
 */
final class Run {
    /** One part of one stream and its loop. */
    static final class Task {
        final String part;
        final Loops.Progress progress = new Loops.Progress();
        final Runnable loop;

        Task(String part, java.util.function.Function<Loops.Progress, LoopResult> body) {
            this.part = part;
            this.loop = () -> {
                try {
                    progress.result = body.apply(progress);
                } catch (Throwable e) { // a kit reports, it does not crash
                    progress.result = new LoopResult(part, "").fail(KitException.E_INTERNAL, e.toString());
                }
                progress.finished = true;
            };
        }
    }

    private final Session session;
    private final Channel channel;
    private final String kind;
    private final Loops.Job job;
    private final List<String> directions = new ArrayList<>();
    private final long cpu;
    private final List<Task> tasks = new ArrayList<>();
    private final long[] gcBefore;

    @SuppressWarnings("unchecked")
    Run(Session session, Map<String, Object> m) throws KitException {
        this.session = session;
        this.channel = session.channel();
        Map<String, Object> j = Channel.object(m, "job", true);
        for (Object d : Channel.list(m, "directions")) {
            if (!(d instanceof String)) throw KitException.protocol("run message field 'directions' holds a non-text item");
            directions.add((String) d);
        }
        Object k = j.get("kind");
        kind = k instanceof String ? (String) k : "";
        if (!List.of("send", "receive", "bidir", "ping", "pong").contains(kind))
            throw new KitException(KitException.E_UNSUPPORTED, "this kit runs no '" + kind
                    + "' job (a conformance check job is for the native worker)");
        if (!(j.get("case") instanceof Map)) throw KitException.protocol("run message field 'job' field 'case' is missing");
        CaseSettings c = new CaseSettings((Map<String, Object>) j.get("case"));
        job = new Loops.Job(c, Channel.bool(j, "reliable", true));
        cpu = Channel.integer(j, "cpu", -1L);
        int n = session.endpoints().size();
        if (directions.size() != n || n % c.streams != 0)
            throw KitException.protocol("endpoint layout does not match the job");
        gcBefore = gcTotals();
    }

    static long[] gcTotals() {
        long[] out = new long[3];
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            out[0] += Math.max(0, gc.getCollectionCount());
            out[1] += Math.max(0, gc.getCollectionTime());
        }
        out[2] = java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        return out;
    }

    private Endpoint endpointFor(int stream, String direction) throws KitException {
        int perStream = directions.size() / job.c.streams;
        for (int i = stream * perStream; i < (stream + 1) * perStream; i++) {
            String d = directions.get(i);
            if (d.equals(direction) || d.equals(Transports.BOTH)) return session.endpoints().get(i);
        }
        throw new KitException(KitException.E_INVALID, "no " + direction + " endpoint in stream " + stream);
    }

    private Task task(String part, int k) throws KitException {
        switch (part) {
            case "send": {
                Endpoint out = endpointFor(k, Transports.SEND);
                return new Task(part, p -> Loops.sender(out, job, p));
            }
            case "receive": {
                Endpoint in = endpointFor(k, Transports.RECV);
                return new Task(part, p -> Loops.receiver(in, job, p));
            }
            case "ping": {
                Endpoint out = endpointFor(k, Transports.SEND);
                Endpoint in = endpointFor(k, Transports.RECV);
                return new Task(part, p -> Loops.pinger(out, in, job, p));
            }
            default: {
                Endpoint in = endpointFor(k, Transports.RECV);
                Endpoint out = endpointFor(k, Transports.SEND);
                return new Task(part, p -> Loops.ponger(in, out, job, p));
            }
        }
    }

    void run() throws IOException, KitException {
        if (cpu >= 0) {
            try {
                Native.pinProcess((int) cpu);
            } catch (KitException e) {
                String part = kind.equals("bidir") ? "receive" : kind;
                LoopResult r = new LoopResult(part, "").fail(KitException.E_INVALID,
                        "cannot run on CPU " + cpu + ": " + e.getMessage() + " (--affinity)");
                Task failed = new Task(part, p -> r);
                failed.progress.result = r;
                report(List.of(failed));
                return;
            }
        }
        for (int k = 0; k < job.c.streams; k++) {
            if (kind.equals("bidir")) {
                tasks.add(task("receive", k));
                tasks.add(task("send", k));
            } else {
                tasks.add(task(kind, k));
            }
        }
        if (tasks.size() == 1 && job.c.intervalS <= 0) {
            Task t = tasks.get(0);
            t.progress.pollControl = () -> {
                try {
                    passCounts(channel.poll());
                } catch (IOException | KitException e) {
                    // the channel's end is seen by the main loop after the run
                }
            };
            t.loop.run();
            LoopResult r = t.progress.result;
            if (t.part.equals("send") && r.error.isEmpty()) sent();
        } else {
            List<Thread> threads = new ArrayList<>();
            for (Task t : tasks) {
                Thread thread = new Thread(t.loop, "stream-" + threads.size());
                thread.setDaemon(true);
                threads.add(thread);
            }
            for (Thread thread : threads) thread.start();
            serveRun();
            for (Thread thread : threads) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    throw new IOException("interrupted", e);
                }
            }
        }
        report(tasks);
    }

    /** What an unreliable receiver waits for: each sending stream's count. */
    private void sent() throws IOException {
        List<Object> counts = new ArrayList<>();
        for (Task t : tasks)
            if (t.part.equals("send")) counts.add(t.progress.result.counters[LoopResult.SENT]);
        Map<String, Object> m = Session.message("sent");
        m.put("streams", counts);
        channel.send(m);
    }

    private void passCounts(Map<String, Object> m) {
        if (m == null || !"sender_done".equals(m.get("type")) || !(m.get("streams") instanceof List)) return;
        List<?> counts = (List<?>) m.get("streams");
        int k = 0;
        for (Task t : tasks) {
            if (!t.part.equals("receive")) continue;
            if (k < counts.size() && counts.get(k) instanceof Long) t.progress.peerSent = (Long) counts.get(k);
            k++;
        }
    }

    /** The channel while the streams run: sent counts, intervals, and a failure at once. */
    private void serveRun() throws IOException, KitException {
        boolean sentReported = !(kind.equals("send") || kind.equals("bidir"));
        Intervals intervals = new Intervals(job.c, tasks, channel);
        while (true) {
            boolean all = true;
            boolean sendersDone = true;
            for (Task t : tasks) {
                all &= t.progress.finished;
                if (t.part.equals("send")) sendersDone &= t.progress.finished;
            }
            if (sendersDone && !sentReported) {
                sent();
                sentReported = true;
            }
            if (all) {
                intervals.reportLast();
                return;
            }
            for (Task t : tasks) {
                if (t.progress.finished && !t.progress.result.error.isEmpty()) {
                    report(List.of(t));
                    waitForEnd();
                }
            }
            intervals.reportDue();
            long wait = Math.min(20, Math.max(0, (intervals.nextDue - System.nanoTime()) / 1_000_000));
            passCounts(channel.receive(wait));
        }
    }

    private void waitForEnd() {
        try {
            while (true) channel.receive(-1);
        } catch (IOException | KitException e) {
            // the orchestrator ended the case
        }
        System.exit(1);
    }

    private void report(List<Task> done) throws IOException {
        List<Object> parts = new ArrayList<>();
        Map<String, Object> m = Session.message("result");
        long rss = Usage.maxRssKib();
        for (String part : new String[] {"receive", "send", "ping", "pong"}) {
            List<LoopResult> streams = new ArrayList<>();
            for (Task t : done)
                if (t.part.equals(part)) streams.add(t.progress.result);
            if (streams.isEmpty()) continue;
            Map<String, Object> summed = LoopResult.summed(part, streams);
            @SuppressWarnings("unchecked")
            Map<String, Object> usage = (Map<String, Object>) summed.get("usage");
            usage.put("max_rss_kib", rss);
            parts.add(summed);
            String error = (String) summed.get("error");
            if (!error.isEmpty() && !m.containsKey("error")) {
                m.put("error", error);
                m.put("status", summed.get("status"));
            }
        }
        m.put("parts", parts);
        m.put("kit", kitFigures());
        channel.send(m);
    }

    /** The collectors' and the JIT's work during this run (GarbageCollectorMXBean, CompilationMXBean). */
    private Map<String, Object> kitFigures() {
        long[] now = gcTotals();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("gc_collections", now[0] - gcBefore[0]);
        out.put("gc_pause_ns", (now[1] - gcBefore[1]) * 1_000_000);
        out.put("jit_compile_ns", (now[2] - gcBefore[2]) * 1_000_000);
        // The processors the JVM sized its collector and compiler threads for: the CPUs the
        // process could use when it started.
        out.put("processors", Runtime.getRuntime().availableProcessors());
        if (StreamsEndpoint.inUse()) out.put("underlying_reads", StreamsEndpoint.underlyingReads());
        return out;
    }

    /**
     * --interval: what the receivers (pingers) counted since the last report, over the time
     * since then as measured; the reports add up to the run.
     */
    static final class Intervals {
        final int size;
        final long intervalNs;
        final List<Task> counting = new ArrayList<>();
        final Channel channel;
        final long start;
        long lastEnd;
        long nextDue;
        long lastMessages;
        long lastLost;

        Intervals(CaseSettings c, List<Task> tasks, Channel channel) {
            size = c.sizeBytes;
            intervalNs = (long) (c.intervalS * 1e9);
            for (Task t : tasks)
                if (t.part.equals("receive") || t.part.equals("ping")) counting.add(t);
            this.channel = channel;
            start = System.nanoTime() + (long) (c.warmupS * 1e9);
            lastEnd = start;
            nextDue = intervalNs > 0 ? start + intervalNs : Long.MAX_VALUE / 2;
        }

        void reportDue() throws IOException {
            long now = System.nanoTime();
            if (now < nextDue) return;
            send(now, false);
            while (nextDue <= now) nextDue += intervalNs;
        }

        void reportLast() throws IOException {
            reportDue();
            long now = System.nanoTime();
            if (intervalNs > 0 && now > lastEnd) send(now, (now - lastEnd) * 100 < intervalNs);
        }

        void send(long now, boolean onlyIfNew) throws IOException {
            if (counting.isEmpty()) return;
            long messages = 0, expected = 0;
            for (Task t : counting) {
                messages += t.progress.messages;
                expected += t.progress.expectedNext;
            }
            if (onlyIfNew && messages == lastMessages) return;
            long lost = Math.max(0, expected - messages);
            long fresh = messages - lastMessages;
            Map<String, Object> m = Session.message("interval");
            m.put("end_s", (now - start) / 1e9);
            m.put("seconds", (now - lastEnd) / 1e9);
            m.put("messages", fresh);
            m.put("bytes", fresh * size);
            m.put("lost", Math.max(0, lost - lastLost));
            channel.send(m);
            lastMessages = messages;
            lastLost = lost;
            lastEnd = now;
        }
    }
}
