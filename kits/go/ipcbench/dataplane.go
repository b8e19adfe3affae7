package ipcbench

import (
	"encoding/binary"
	"math"
	_ "unsafe" // go:linkname
)

// The data plane (docs/worker-protocol.md, "Data plane").
const (
	FlagWarmup      = uint64(1) << 62
	FlagEnd         = uint64(1) << 63
	SequenceMask    = (uint64(1) << 56) - 1
	HeaderBytes     = 8
	TimestampOffset = 8
	patternPeriod   = 251

	LostPingNs      = 200_000_000
	PongerSilenceNs = 2_000_000_000
	ReceiverQuietNs = 20_000_000
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Now is CLOCK_MONOTONIC in nanoseconds: the clock ipchost and the plugins read (the Go
// runtime's own monotonic clock, read through the vDSO).
func Now() int64 { return nanotime() }

func endMarkers(reliable bool) int {
	if reliable {
		return 1
	}
	return 3
}

// The timed side's decisions, each tested by protocol/vectors (vectors_test.go).

// StepKind is what a timed sender does next.
type StepKind int

// A sender sends, waits or ends.
const (
	StepSend StepKind = iota
	StepWait
	StepEnd
)

// Step is a sender's next move: Count messages back to back (paced: one, stamped DueNs), or a
// wait until DueNs.
type Step struct {
	What  StepKind
	Count uint64
	DueNs int64
}

// SendSchedule is the schedule of one sending stream (the host's timing::send_schedule):
// unpaced, batches until the count or the window's end, a count cutting the last batch; paced,
// a slot a message, a burst sharing the slot of its first, a slot due however late the sender
// is, and the window ending on time.
type SendSchedule struct {
	count, batch, burst uint64
	periodNs            float64
	durationNs, StartNs int64
}

// NewSendSchedule for a case; batch is how many unpaced messages go between two looks.
func NewSendSchedule(c *Case, batch uint64) *SendSchedule {
	s := &SendSchedule{count: c.Count, batch: batch, burst: uint64(c.Burst),
		durationNs: int64(math.Round(c.DurationS * 1e9))}
	if s.batch < 1 {
		s.batch = 1
	}
	if c.Burst < 1 {
		s.burst = 1
	}
	if c.RatePerS > 0 {
		s.periodNs = 1e9 / c.RatePerS
	}
	return s
}

// Paced is true with a rate.
func (s *SendSchedule) Paced() bool { return s.periodNs > 0 }

// WindowEnd is when the timed window ends.
func (s *SendSchedule) WindowEnd() int64 { return s.StartNs + s.durationNs }

// Due is when the timed message seq is due (paced only).
func (s *SendSchedule) Due(seq uint64, offset int64) int64 {
	return s.StartNs + offset + int64(float64(seq-seq%s.burst)*s.periodNs)
}

// Next is what comes after seq timed messages, at now.
func (s *SendSchedule) Next(seq uint64, now, offset int64) Step {
	if (s.count > 0 && seq >= s.count) || (s.count == 0 && now >= s.WindowEnd()) {
		return Step{What: StepEnd}
	}
	if !s.Paced() {
		n := s.batch
		if s.count > 0 && s.count-seq < n {
			n = s.count - seq
		}
		return Step{What: StepSend, Count: n}
	}
	due := s.Due(seq, offset)
	if s.count == 0 && due >= s.WindowEnd() {
		return Step{What: StepEnd}
	}
	if due > now {
		return Step{What: StepWait, DueNs: due}
	}
	return Step{What: StepSend, Count: 1, DueNs: due}
}

// pingsDone: whether a pinger's timed part is over after seq round trips.
func pingsDone(count, seq uint64, now, windowEnd int64) bool {
	if count > 0 {
		return seq >= count
	}
	return now >= windowEnd
}

// What a ponger does with a ping: echo it, echo it and open its window, or end.
const (
	pongEcho = iota
	pongEchoFirstTimed
	pongEnd
)

func pongerStep(header uint64, timedAlready bool) int {
	if header&FlagEnd != 0 {
		return pongEnd
	}
	if !timedAlready && header&FlagWarmup == 0 {
		return pongEchoFirstTimed
	}
	return pongEcho
}

func clockStride(size int) uint64 {
	if size >= 4096 {
		return 1
	}
	return 16
}

func patternOffset(paced bool) int {
	if paced {
		return TimestampOffset + 8
	}
	return HeaderBytes
}

// Pattern is the payload: table[i] = (i*131+7) & 0xff, message s carries table[s%251:].
type Pattern struct {
	offset, length int
	table          []byte
}

// NewPattern for messages of size bytes, starting at offset.
func NewPattern(size, offset int) *Pattern {
	if offset > size {
		offset = size
	}
	p := &Pattern{offset: offset, length: size - offset}
	p.table = make([]byte, p.length+patternPeriod)
	for i := range p.table {
		p.table[i] = byte((i*131 + 7) & 0xff)
	}
	return p
}

// Write puts message seq's pattern into m.
func (p *Pattern) Write(m []byte, seq uint64) {
	k := int(seq % patternPeriod)
	copy(m[p.offset:], p.table[k:k+p.length])
}

// Matches tells whether m carries message seq's pattern.
func (p *Pattern) Matches(m []byte, seq uint64) bool {
	k := int(seq % patternPeriod)
	a, b := m[p.offset:p.offset+p.length], p.table[k:k+p.length]
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func putU64(m []byte, at int, v uint64) { binary.LittleEndian.PutUint64(m[at:], v) }
func getU64(m []byte, at int) uint64    { return binary.LittleEndian.Uint64(m[at:]) }

const subBits = 8
const subCount = 1 << subBits

// Histogram is ipchost's log-linear histogram of nanoseconds.
type Histogram struct {
	counts          []uint64
	count, sum, max uint64
	min             uint64
	any             bool
}

// NewHistogram is empty.
func NewHistogram() *Histogram { return &Histogram{counts: make([]uint64, subCount*(64-subBits+1))} }

func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	msb := 63
	for v>>uint(msb) == 0 {
		msb--
	}
	shift := msb - subBits
	return (shift+1)*subCount + int(v>>uint(shift)) - subCount
}

// Record adds one value (negative ones as 0).
func (h *Histogram) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	h.counts[bucketOf(v)]++
	h.count++
	h.sum += v
	if !h.any || v < h.min {
		h.min = v
	}
	h.any = true
	if v > h.max {
		h.max = v
	}
}

// Merge adds another histogram.
func (h *Histogram) Merge(o *Histogram) {
	for b, c := range o.counts {
		h.counts[b] += c
	}
	h.count += o.count
	h.sum += o.sum
	if o.any && (!h.any || o.min < h.min) {
		h.min = o.min
		h.any = true
	}
	if o.max > h.max {
		h.max = o.max
	}
}

// JSON is the histogram as the protocol writes it.
func (h *Histogram) JSON() map[string]interface{} {
	buckets := [][2]uint64{}
	for b, c := range h.counts {
		if c > 0 {
			buckets = append(buckets, [2]uint64{uint64(b), c})
		}
	}
	return map[string]interface{}{"buckets": buckets, "count": h.count, "sum": h.sum,
		"min": h.min, "max": h.max, "sub_bits": subBits}
}

// sequenceTracker classifies arrivals as the native one does (a window of 65,536 numbers).
type sequenceTracker struct {
	expected                             uint64 // highest seen + 1
	any                                  bool
	missing                              map[uint64]struct{}
	duplicates, outOfOrder, beyondWindow uint64
}

const trackerWindow = 1 << 16

// unseenBelow marks the numbers within the window below seq as not seen yet (a first arrival,
// or a gap wider than the window).
func (t *sequenceTracker) unseenBelow(seq uint64) {
	t.missing = map[uint64]struct{}{}
	from := uint64(0)
	if seq >= trackerWindow {
		from = seq - trackerWindow + 1
	}
	for s := from; s < seq; s++ {
		t.missing[s] = struct{}{}
	}
}

func (t *sequenceTracker) record(seq uint64) bool {
	if !t.any {
		t.any = true
		t.expected = seq + 1
		if seq > 0 {
			t.unseenBelow(seq)
		}
		return true
	}
	if seq >= t.expected {
		gap := seq - t.expected
		if gap >= trackerWindow {
			t.unseenBelow(seq)
		} else if gap > 0 {
			if t.missing == nil {
				t.missing = map[uint64]struct{}{}
			}
			for s := t.expected; s < seq; s++ {
				t.missing[s] = struct{}{}
			}
			if len(t.missing) > 2*trackerWindow {
				for s := range t.missing {
					if s+trackerWindow <= seq {
						delete(t.missing, s)
					}
				}
			}
		}
		t.expected = seq + 1
		return true
	}
	if t.expected-1-seq >= trackerWindow {
		t.beyondWindow++
		t.outOfOrder++
		return true
	}
	if _, ok := t.missing[seq]; ok {
		delete(t.missing, seq)
		t.outOfOrder++
		return true
	}
	t.duplicates++
	return false
}
