package ipcbench.kit;

import java.util.Map;

/** The fields of a run job's case a kit uses (docs/worker-protocol.md, "run"). */
public final class CaseSettings {
    public final int sizeBytes;
    public final double durationS;
    public final double warmupS;
    public final long count;
    public final int streams;
    public final double ratePerS;
    public final long burst;
    public final int batch;
    public final boolean verify;
    public final double intervalS;

    public CaseSettings(Map<String, Object> c) throws KitException {
        long size = Channel.integer(c, "size_bytes", null);
        if (size < 8 || size > (1 << 30))
            throw KitException.protocol("case field 'size_bytes' is out of range (8 to 1 GiB)");
        sizeBytes = (int) size;
        durationS = Channel.number(c, "duration_s", 0.0);
        warmupS = Channel.number(c, "warmup_s", 0.0);
        count = Channel.integer(c, "count", 0L);
        long s = Channel.integer(c, "streams", 1L);
        if (s < 1 || s > 20000) throw KitException.protocol("case field 'streams' is out of range (1 to 20,000)");
        streams = (int) s;
        ratePerS = Channel.number(c, "rate_per_s", 0.0);
        burst = Math.max(1, Channel.integer(c, "burst", 1L));
        batch = (int) Math.max(1, Math.min(1 << 20, Channel.integer(c, "batch", 1L)));
        verify = Channel.bool(c, "verify", false);
        intervalS = Channel.number(c, "interval_s", 0.0);
        if (count < 0 || durationS < 0 || warmupS < 0 || ratePerS < 0 || intervalS < 0)
            throw KitException.protocol("case fields count, duration_s, warmup_s, rate_per_s and "
                                        + "interval_s must not be negative");
    }
}
