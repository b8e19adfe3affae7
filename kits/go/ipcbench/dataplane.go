package ipcbench

import (
	"encoding/binary"
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

func (t *sequenceTracker) record(seq uint64) bool {
	if !t.any {
		t.any = true
		t.expected = seq + 1
		return true
	}
	if seq >= t.expected {
		gap := seq - t.expected
		if gap >= trackerWindow {
			t.missing = nil
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
