package ipcbench

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// The timed loops (docs/worker-protocol.md, "The timed side"): what a sender, receiver, pinger
// and ponger do between the clock reads, on an Endpoint, doing what a plain Go loop making the
// same calls would do and no more.

// Case is the part of a job's case settings the loops read.
type Case struct {
	SizeBytes int     `json:"size_bytes"`
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Count     uint64  `json:"count"`
	Streams   int     `json:"streams"`
	RatePerS  float64 `json:"rate_per_s"`
	Burst     int     `json:"burst"`
	Batch     int     `json:"batch"`
	Verify    bool    `json:"verify"`
	IntervalS float64 `json:"interval_s"`
}

// Job is what a run message asks of this worker.
type Job struct {
	Kind     string `json:"kind"`
	Case     Case   `json:"case"`
	Reliable bool   `json:"reliable"`
	Stream   bool   `json:"stream"`
	CPU      int    `json:"cpu"`
}

// Progress is what a running stream shows the channel goroutine.
type Progress struct {
	Messages     atomic.Uint64
	ExpectedNext atomic.Uint64
	PeerSent     atomic.Int64 // -1 until sender_done
	Finished     atomic.Bool
	Result       *LoopResult
}

// Usage is a thread's CPU over a window (docs/worker-protocol.md, "Results", usage).
type Usage struct {
	CPUUserS    float64 `json:"cpu_user_s"`
	CPUSysS     float64 `json:"cpu_sys_s"`
	MaxRSSKiB   int64   `json:"max_rss_kib"`
	VoluntaryCS int64   `json:"voluntary_ctx_switches"`
	InvolunCS   int64   `json:"involuntary_ctx_switches"`
	CPUsSeen    uint64  `json:"cpus_seen"`
}

// LoopResult is one stream's (or, summed, one part's) figures.
type LoopResult struct {
	Part           string
	Counters       [16]uint64
	EndedBy        string
	FirstNs, EndNs int64
	Path           string
	Usage          Usage
	Histogram      *Histogram
	ThreadID       int64
	Error          string
	Status         int
}

// Counter names, in the protocol's order.
var counterNames = [16]string{"warmup_messages", "messages_sent", "bytes_sent",
	"messages_received", "bytes_received", "counted_messages", "duplicates", "out_of_order",
	"beyond_window", "corrupted", "pings_sent", "round_trips", "lost", "mismatched",
	"stale_pongs", "echoed"}

const (
	cWarmup = iota
	cSent
	cBytesSent
	cReceived
	cBytesReceived
	cCounted
	cDuplicates
	cOutOfOrder
	cBeyondWindow
	cCorrupted
	cPingsSent
	cRoundTrips
	cLost
	cMismatched
	cStalePongs
	cEchoed
)

func thisCPU() int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 37 {
		return -1
	}
	cpu, err := strconv.Atoi(fields[36])
	if err != nil {
		return -1
	}
	return cpu
}

type usageSample struct {
	ru   syscall.Rusage
	cpus uint64
}

// Goroutines have no thread of their own (a loop that blocks in the poller resumes on whichever
// thread the scheduler picks, and pinning it to one costs a thread hand-off per wake-up: 5x the
// round trip), so a loop's CPU is the whole process's over its window: the runtime's threads
// are part of what a Go program pays. Summed over streams it is the largest, not the sum.
func (u *usageSample) start() {
	syscall.Getrusage(syscall.RUSAGE_SELF, &u.ru)
	u.see()
}

func (u *usageSample) see() {
	if c := thisCPU(); c >= 0 && c < 64 {
		u.cpus |= 1 << uint(c)
	}
}

func seconds(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func (u *usageSample) stop() Usage {
	var after, self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	self = after
	u.see()
	return Usage{CPUUserS: seconds(after.Utime) - seconds(u.ru.Utime),
		CPUSysS:     seconds(after.Stime) - seconds(u.ru.Stime),
		MaxRSSKiB:   self.Maxrss,
		VoluntaryCS: after.Nvcsw - u.ru.Nvcsw, InvolunCS: after.Nivcsw - u.ru.Nivcsw,
		CPUsSeen: u.cpus}
}

func newResult(part, path string) *LoopResult {
	return &LoopResult{Part: part, Path: path, ThreadID: int64(syscall.Gettid())}
}

func (r *LoopResult) fail(err error, stage string) *LoopResult {
	r.Error = fmt.Sprintf("%s: %v", stage, err)
	r.Status = StatusOf(err)
	return r
}

func waitUntil(when int64) {
	if left := when - Now(); left > 100_000 {
		time.Sleep(time.Duration(left - 50_000))
	}
	for Now() < when {
	}
}

// Reader hands out whole messages: on a byte stream it reads until size bytes are in.
type Reader struct {
	ep   Endpoint
	size int
	buf  []byte
}

// NewReader for messages of size bytes.
func NewReader(ep Endpoint, size int) *Reader {
	n := size
	if !ep.Stream() && n < 64 {
		n = 64
	}
	return &Reader{ep: ep, size: size, buf: make([]byte, n)}
}

// Next is the next message (valid until the next call), nil at a close; a timeout error when
// timeout (>= 0) passed first.
func (r *Reader) Next(timeout time.Duration) ([]byte, error) {
	if !r.ep.Stream() {
		for {
			n, err := r.ep.Recv(r.buf, timeout)
			if err != nil {
				if err == io.EOF || StatusOf(err) == StatusClosed {
					return nil, nil
				}
				return nil, err
			}
			if n == r.size {
				return r.buf[:r.size], nil
			}
		}
	}
	got := 0
	for got < r.size {
		n, err := r.ep.Recv(r.buf[got:r.size], timeout)
		got += n
		if err != nil {
			if err == io.EOF || StatusOf(err) == StatusClosed {
				return nil, nil
			}
			if got > 0 && StatusOf(err) == StatusTimeout {
				timeout = -1 // a message begun is finished
				continue
			}
			return nil, err
		}
	}
	return r.buf[:r.size], nil
}

// RunSender is a throughput sender's stream.
func RunSender(ep Endpoint, j *Job, p *Progress) *LoopResult {
	c := &j.Case
	paced := c.RatePerS > 0
	pattern := NewPattern(c.SizeBytes, patternOffset(paced))
	m := make([]byte, c.SizeBytes)
	pattern.Write(m, 0)
	send, _ := ep.Calls()
	r := newResult("send", send)
	stride := clockStride(c.SizeBytes)
	if c.WarmupS > 0 {
		end := Now() + int64(c.WarmupS*1e9)
		for warm := uint64(0); ; {
			putU64(m, 0, FlagWarmup|warm)
			if c.Verify {
				pattern.Write(m, warm)
			}
			if err := ep.Send(m); err != nil {
				return r.fail(err, "send (warm-up)")
			}
			warm++
			if warm%stride == 0 && Now() >= end {
				r.Counters[cWarmup] = warm
				break
			}
		}
	}
	var u usageSample
	u.start()
	schedule := NewSendSchedule(c, stride)
	start := Now()
	schedule.StartNs = start
	seq, err := timedSends(ep, c, schedule, m, pattern, p)
	r.EndNs, r.FirstNs, r.Usage = Now(), start, u.stop()
	r.Counters[cSent], r.Counters[cBytesSent] = seq, seq*uint64(c.SizeBytes)
	if err != nil {
		return r.fail(err, "send")
	}
	for i := 0; i < endMarkers(j.Reliable); i++ {
		putU64(m, 0, FlagEnd|seq)
		if c.Verify {
			pattern.Write(m, seq)
		}
		if err := ep.Send(m); err != nil {
			return r.fail(err, "send (end marker)")
		}
	}
	return r
}

func timedSends(ep Endpoint, c *Case, s *SendSchedule, m []byte, pattern *Pattern, p *Progress) (uint64, error) {
	var seq uint64
	for {
		step := s.Next(seq, Now(), 0)
		if step.What == StepEnd {
			return seq, nil
		}
		if step.What == StepWait {
			waitUntil(step.DueNs)
			continue
		}
		if s.Paced() {
			putU64(m, TimestampOffset, uint64(step.DueNs))
		}
		for i := uint64(0); i < step.Count; i++ {
			putU64(m, 0, seq)
			if c.Verify {
				pattern.Write(m, seq)
			}
			if err := ep.Send(m); err != nil {
				return seq, err
			}
			seq++
		}
		p.Messages.Store(seq)
	}
}

// RunReceiver is a throughput receiver's stream.
func RunReceiver(ep Endpoint, j *Job, p *Progress) *LoopResult {
	c := &j.Case
	paced := c.RatePerS > 0
	pattern := NewPattern(c.SizeBytes, patternOffset(paced))
	reader := NewReader(ep, c.SizeBytes)
	_, recv := ep.Calls()
	r := newResult("receive", recv)
	timeout := time.Duration(-1)
	if !j.Reliable {
		timeout = ReceiverQuietNs
	}
	var oneWay *Histogram
	if paced {
		oneWay = NewHistogram()
	}
	var t sequenceTracker
	var received, warm, corrupted uint64
	var first, last, end int64
	var u usageSample
	u.start()
	for r.EndedBy == "" {
		m, err := reader.Next(timeout)
		if err != nil {
			if StatusOf(err) == StatusTimeout {
				if p.PeerSent.Load() >= 0 {
					r.EndedBy, end = "sender-done", last
				}
				continue
			}
			r.fail(err, "recv")
			break
		}
		if m == nil {
			r.EndedBy = "closed"
			if received > 0 {
				end = Now()
			}
			break
		}
		header := getU64(m, 0)
		if header&FlagEnd != 0 {
			end, r.EndedBy = Now(), "end-marker"
			break
		}
		if header&FlagWarmup != 0 {
			warm++
			continue
		}
		if received == 0 {
			first = Now()
			u.start()
		}
		if oneWay != nil || !j.Reliable {
			last = Now()
		}
		received++
		seq := header & SequenceMask
		fresh := true
		if t.any && seq == t.expected {
			t.expected++
		} else {
			fresh = t.record(seq)
		}
		if c.Verify && fresh && !pattern.Matches(m, seq) {
			corrupted++
		}
		if oneWay != nil {
			oneWay.Record(last - int64(getU64(m, TimestampOffset)))
		}
		p.Messages.Store(received)
		p.ExpectedNext.Store(t.expected)
	}
	p.Messages.Store(received)
	p.ExpectedNext.Store(t.expected)
	r.Usage = u.stop()
	r.Counters[cReceived], r.Counters[cBytesReceived] = received, received*uint64(c.SizeBytes)
	r.Counters[cWarmup], r.Counters[cCorrupted] = warm, corrupted
	r.Counters[cDuplicates], r.Counters[cOutOfOrder], r.Counters[cBeyondWindow] = t.duplicates, t.outOfOrder, t.beyondWindow
	r.FirstNs, r.EndNs = first, first
	if received > 0 {
		r.EndNs = end
	}
	r.Counters[cCounted] = received
	if r.EndedBy != "end-marker" && r.EndedBy != "closed" && received > 0 {
		r.Counters[cCounted] = received - 1
	}
	r.Histogram = oneWay
	return r
}

func judgePong(ping, pong uint64, reliable bool) string {
	flags := ^SequenceMask
	if !reliable && pong&flags == 0 && ping&flags == 0 && pong&SequenceMask < ping&SequenceMask {
		return "stale"
	}
	if ping&FlagWarmup != 0 {
		return "warmup"
	}
	if pong&SequenceMask == ping&SequenceMask {
		return "matched"
	}
	return "mismatched"
}

// RunPinger is a latency pinger's stream.
func RunPinger(out, in Endpoint, j *Job, p *Progress) *LoopResult {
	c := &j.Case
	pattern := NewPattern(c.SizeBytes, HeaderBytes)
	m := make([]byte, c.SizeBytes)
	pattern.Write(m, 0)
	reader := NewReader(in, c.SizeBytes)
	send, _ := out.Calls()
	_, recv := in.Calls()
	r := newResult("ping", send+" -> "+recv)
	timeout := time.Duration(-1)
	if !j.Reliable {
		timeout = LostPingNs
	}
	h := NewHistogram()
	var stale uint64
	roundTrip := func(header uint64) (string, error) {
		putU64(m, 0, header)
		if c.Verify {
			pattern.Write(m, header&SequenceMask)
		}
		if err := out.Send(m); err != nil {
			return "", err
		}
		for {
			pong, err := reader.Next(timeout)
			if err != nil {
				return "", err
			}
			if pong == nil {
				return "", Fail(StatusClosed, "the ponger closed the connection")
			}
			ph := getU64(pong, 0)
			v := judgePong(header, ph, j.Reliable)
			if v == "stale" {
				stale++
				continue
			}
			if c.Verify && v == "matched" && !pattern.Matches(pong, ph&SequenceMask) {
				return "corrupted", nil
			}
			return v, nil
		}
	}
	var warm, seq, lost, mismatched, corrupted uint64
	warmEnd := Now() + int64(c.WarmupS*1e9)
	for c.WarmupS > 0 && Now() < warmEnd {
		if _, err := roundTrip(FlagWarmup | warm); err != nil {
			if StatusOf(err) == StatusTimeout {
				continue
			}
			return r.fail(err, "ping (warm-up)")
		}
		warm++
	}
	var u usageSample
	u.start()
	start := Now()
	end := start + NewSendSchedule(c, 1).WindowEnd()
	t := start
	var failure error
	for {
		t0 := t
		v, err := roundTrip(seq)
		t = Now()
		if err != nil && StatusOf(err) == StatusTimeout {
			lost++
		} else if err != nil {
			failure = err
			break
		} else {
			h.Record(t - t0)
			if v == "mismatched" {
				mismatched++
			} else if v == "corrupted" {
				corrupted++
			}
		}
		seq++
		p.Messages.Store(seq)
		if pingsDone(c.Count, seq, t, end) {
			break
		}
	}
	r.EndNs, r.FirstNs, r.Usage = Now(), start, u.stop()
	r.Counters[cRoundTrips], r.Counters[cPingsSent], r.Counters[cLost] = h.count, seq, lost
	r.Counters[cMismatched], r.Counters[cStalePongs], r.Counters[cCorrupted] = mismatched, stale, corrupted
	r.Counters[cWarmup] = warm
	r.Histogram = h
	if failure != nil {
		return r.fail(failure, "ping")
	}
	for i := 0; i < endMarkers(j.Reliable); i++ {
		putU64(m, 0, FlagEnd|seq)
		if err := out.Send(m); err != nil {
			return r.fail(err, "send (end marker)")
		}
	}
	return r
}

// RunPonger is a latency ponger's stream.
func RunPonger(in, out Endpoint, j *Job, p *Progress) *LoopResult {
	reader := NewReader(in, j.Case.SizeBytes)
	send, _ := out.Calls()
	_, recv := in.Calls()
	r := newResult("pong", recv+" -> "+send)
	timeout := time.Duration(-1)
	if !j.Reliable {
		timeout = PongerSilenceNs
	}
	var u usageSample
	u.start()
	start := Now()
	timed := false
	var echoed uint64
	var failure error
	stage := "pong"
	for {
		m, err := reader.Next(timeout)
		if err != nil {
			if StatusOf(err) != StatusTimeout {
				failure, stage = err, "recv"
			}
			break
		}
		if m == nil {
			break
		}
		step := pongerStep(getU64(m, 0), timed)
		if step == pongEnd {
			break
		}
		if step == pongEchoFirstTimed {
			timed = true
			u.start()
			start = Now()
		}
		if err := out.Send(m); err != nil {
			failure, stage = err, "send"
			break
		}
		echoed++
		p.Messages.Store(echoed)
	}
	r.EndNs, r.FirstNs, r.Usage = Now(), start, u.stop()
	r.Counters[cEchoed] = echoed
	if failure != nil {
		return r.fail(failure, stage)
	}
	return r
}
