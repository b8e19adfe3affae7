package ipcbench.kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A loop result (docs/worker-protocol.md, "Results"): one stream's, or one part's summed. */
final class LoopResult {
    static final String[] COUNTERS = {"warmup_messages", "messages_sent", "bytes_sent",
        "messages_received", "bytes_received", "counted_messages", "duplicates", "out_of_order",
        "beyond_window", "corrupted", "pings_sent", "round_trips", "lost", "mismatched",
        "stale_pongs", "echoed"};
    static final int WARMUP = 0, SENT = 1, BYTES_SENT = 2, RECEIVED = 3, BYTES_RECEIVED = 4,
        COUNTED = 5, DUPLICATES = 6, OUT_OF_ORDER = 7, BEYOND_WINDOW = 8, CORRUPTED = 9,
        PINGS = 10, ROUND_TRIPS = 11, LOST = 12, MISMATCHED = 13, STALE = 14, ECHOED = 15;

    final String part;
    String path;
    final long[] counters = new long[COUNTERS.length];
    String endedBy = "";
    long firstNs;
    long endNs;
    Map<String, Object> usage;
    DataPlane.Histogram histogram;
    long threadId = Usage.threadId();
    String error = "";
    int status;

    LoopResult(String part, String path) {
        this.part = part;
        this.path = path;
    }

    LoopResult fail(int status, String text) {
        this.status = status;
        this.error = text;
        if (usage == null) usage = new Usage().stop();
        return this;
    }

    double cpu(String key) {
        return usage == null ? 0 : ((Number) usage.get(key)).doubleValue();
    }

    Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("part", part);
        for (int i = 0; i < COUNTERS.length; i++) out.put(COUNTERS[i], counters[i]);
        out.put("ended_by", endedBy);
        out.put("first_ns", firstNs);
        out.put("end_ns", endNs);
        out.put("path", path);
        out.put("usage", usage != null ? usage : new Usage().stop());
        out.put("histogram", histogram == null ? null : histogram.toJson());
        out.put("thread_id", threadId);
        out.put("error", error);
        out.put("status", (long) status);
        return out;
    }

    /** One part's streams summed, each stream's own kept as rows. */
    static Map<String, Object> summed(String part, List<LoopResult> streams) {
        LoopResult sum = new LoopResult(part, streams.get(0).path);
        sum.threadId = streams.get(0).threadId;
        long first = Long.MAX_VALUE;
        double user = 0, sys = 0;
        long voluntary = 0, involuntary = 0, cpus = 0, rss = 0;
        List<Object> rows = new ArrayList<>();
        List<Object> errors = new ArrayList<>();
        for (int k = 0; k < streams.size(); k++) {
            LoopResult s = streams.get(k);
            for (int i = 0; i < COUNTERS.length; i++) sum.counters[i] += s.counters[i];
            if (sum.endedBy.isEmpty()) sum.endedBy = s.endedBy;
            if (s.firstNs > 0) first = Math.min(first, s.firstNs);
            sum.endNs = Math.max(sum.endNs, s.endNs);
            if (s.histogram != null) {
                if (sum.histogram == null) sum.histogram = new DataPlane.Histogram();
                sum.histogram.merge(s.histogram);
            }
            if (s.usage != null) {
                user += s.cpu("cpu_user_s");
                sys += s.cpu("cpu_sys_s");
                voluntary += (Long) s.usage.get("voluntary_ctx_switches");
                involuntary += (Long) s.usage.get("involuntary_ctx_switches");
                cpus |= (Long) s.usage.get("cpus_seen");
                rss = Math.max(rss, (Long) s.usage.get("max_rss_kib"));
            }
            List<Object> row = new ArrayList<>();
            for (long c : s.counters) row.add(c);
            row.add(s.firstNs);
            row.add(s.endNs);
            row.add(s.threadId);
            row.add(s.cpu("cpu_user_s"));
            row.add(s.cpu("cpu_sys_s"));
            row.add((long) s.status);
            rows.add(row);
            if (!s.error.isEmpty()) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("stream", (long) k);
                e.put("error", s.error);
                errors.add(e);
                if (sum.error.isEmpty()) {
                    sum.error = s.error + (streams.size() > 1 ? " (stream " + k + ")" : "");
                    sum.status = s.status;
                }
            }
        }
        sum.firstNs = first == Long.MAX_VALUE ? 0 : first;
        Map<String, Object> usage = new LinkedHashMap<>();
        usage.put("cpu_user_s", user);
        usage.put("cpu_sys_s", sys);
        usage.put("max_rss_kib", rss);
        usage.put("voluntary_ctx_switches", voluntary);
        usage.put("involuntary_ctx_switches", involuntary);
        usage.put("cpus_seen", cpus);
        sum.usage = usage;
        Map<String, Object> out = sum.toJson();
        Map<String, Object> perStream = new LinkedHashMap<>();
        perStream.put("rows", rows);
        perStream.put("errors", errors);
        out.put("streams", perStream);
        return out;
    }
}
