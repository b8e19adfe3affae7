package ipcbench

// The shared vectors of protocol/vectors (docs/worker-protocol.md, "Shared vectors"): the same
// tables the host's unit tests run, here against this kit's schedule, latency steps, histogram,
// pattern, sequence tracker and reader. IPCBENCH_VECTORS names the folder (default: the
// repository's, from this package's folder).

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func loadVectors(t *testing.T, name string, into interface{}) {
	dir := os.Getenv("IPCBENCH_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "protocol", "vectors")
	}
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("the shared vectors: %v (set IPCBENCH_VECTORS to protocol/vectors)", err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type vectorHeader struct {
	Seq   uint64   `json:"seq"`
	Flags []string `json:"flags"`
}

func (h vectorHeader) word(t *testing.T) uint64 {
	v := h.Seq
	for _, f := range h.Flags {
		switch f {
		case "warmup":
			v |= FlagWarmup
		case "end":
			v |= FlagEnd
		default:
			t.Fatalf("unknown flag %q", f)
		}
	}
	return v
}

func TestVectorsSendSchedule(t *testing.T) {
	var v struct {
		Cases []struct {
			Name       string `json:"name"`
			Settings   Case   `json:"settings"`
			Batch      uint64 `json:"batch"`
			StartNs    int64  `json:"start_ns"`
			SlotOffset int64  `json:"slot_offset_ns"`
			Steps      []struct {
				Seq   uint64  `json:"seq"`
				Now   int64   `json:"now_ns"`
				Step  string  `json:"step"`
				Count *uint64 `json:"count"`
				Due   *int64  `json:"due_ns"`
			} `json:"steps"`
		} `json:"cases"`
	}
	loadVectors(t, "send_schedule.json", &v)
	names := map[StepKind]string{StepSend: "send", StepWait: "wait", StepEnd: "end"}
	for _, c := range v.Cases {
		s := NewSendSchedule(&c.Settings, c.Batch)
		s.StartNs = c.StartNs
		for _, row := range c.Steps {
			got := s.Next(row.Seq, row.Now, c.SlotOffset)
			if names[got.What] != row.Step || (row.Count != nil && got.Count != *row.Count) ||
				(row.Due != nil && got.DueNs != *row.Due) {
				t.Errorf("%s: seq %d at %d: got %+v, want %s %v %v", c.Name, row.Seq, row.Now, got,
					row.Step, row.Count, row.Due)
			}
		}
	}
}

func TestVectorsLatencySteps(t *testing.T) {
	var v struct {
		JudgePong []struct {
			Ping, Pong vectorHeader
			Reliable   bool
			Verdict    string
		} `json:"judge_pong"`
		PongerStep []struct {
			Header       vectorHeader
			TimedAlready bool `json:"timed_already"`
			Step         string
		} `json:"ponger_step"`
		PingsDone []struct {
			Count     uint64
			Seq       uint64
			Now       int64 `json:"now_ns"`
			WindowEnd int64 `json:"window_end_ns"`
			Done      bool
		} `json:"pings_done"`
		EndMarkers []struct {
			Reliable bool
			Markers  int
		} `json:"end_markers"`
		ClockStride []struct {
			Size   int    `json:"size_bytes"`
			Stride uint64 `json:"stride"`
		} `json:"clock_stride"`
	}
	loadVectors(t, "latency_steps.json", &v)
	if len(v.JudgePong) == 0 || len(v.PongerStep) == 0 || len(v.PingsDone) == 0 {
		t.Fatal("latency_steps.json: empty tables")
	}
	for _, r := range v.JudgePong {
		if got := judgePong(r.Ping.word(t), r.Pong.word(t), r.Reliable); got != r.Verdict {
			t.Errorf("judge_pong %+v %+v reliable %v: %s, want %s", r.Ping, r.Pong, r.Reliable, got, r.Verdict)
		}
	}
	steps := []string{"echo", "echo_first_timed", "end"}
	for _, r := range v.PongerStep {
		if got := steps[pongerStep(r.Header.word(t), r.TimedAlready)]; got != r.Step {
			t.Errorf("ponger_step %+v %v: %s, want %s", r.Header, r.TimedAlready, got, r.Step)
		}
	}
	for _, r := range v.PingsDone {
		if got := pingsDone(r.Count, r.Seq, r.Now, r.WindowEnd); got != r.Done {
			t.Errorf("pings_done %+v: %v", r, got)
		}
	}
	for _, r := range v.EndMarkers {
		if got := endMarkers(r.Reliable); got != r.Markers {
			t.Errorf("end_markers reliable %v: %d, want %d", r.Reliable, got, r.Markers)
		}
	}
	for _, r := range v.ClockStride {
		if got := clockStride(r.Size); got != r.Stride {
			t.Errorf("clock_stride %d: %d, want %d", r.Size, got, r.Stride)
		}
	}
}

func TestVectorsHistogramAndPattern(t *testing.T) {
	var v struct {
		SubBits  int `json:"sub_bits"`
		BucketOf []struct {
			Value  uint64
			Bucket int
		} `json:"bucket_of"`
		Histograms []struct {
			Values   []int64
			Document json.RawMessage
		}
		Patterns []struct {
			Size    int `json:"size_bytes"`
			Paced   bool
			Seq     uint64
			Payload string `json:"payload_hex"`
		}
	}
	loadVectors(t, "histogram_and_pattern.json", &v)
	if v.SubBits != subBits {
		t.Errorf("sub_bits %d, want %d", subBits, v.SubBits)
	}
	for _, r := range v.BucketOf {
		if got := bucketOf(r.Value); got != r.Bucket {
			t.Errorf("bucket_of %d: %d, want %d", r.Value, got, r.Bucket)
		}
	}
	for _, r := range v.Histograms {
		h := NewHistogram()
		for _, x := range r.Values {
			h.Record(x)
		}
		var want, got interface{}
		raw, _ := json.Marshal(h.JSON())
		_ = json.Unmarshal(raw, &got)
		_ = json.Unmarshal(r.Document, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("histogram of %v: %s, want %s", r.Values, raw, r.Document)
		}
	}
	for _, r := range v.Patterns {
		m := make([]byte, r.Size)
		p := NewPattern(r.Size, patternOffset(r.Paced))
		p.Write(m, r.Seq)
		from := patternOffset(r.Paced)
		if from > r.Size {
			from = r.Size
		}
		if got := hex.EncodeToString(m[from:]); got != r.Payload {
			t.Errorf("pattern %d paced %v seq %d: %s, want %s", r.Size, r.Paced, r.Seq, got, r.Payload)
		}
		if !p.Matches(m, r.Seq) {
			t.Errorf("pattern %d seq %d: its own payload does not match", r.Size, r.Seq)
		}
		if from < r.Size {
			m[r.Size-1] ^= 1
			if p.Matches(m, r.Seq) {
				t.Errorf("pattern %d seq %d: a corrupted byte matches", r.Size, r.Seq)
			}
		}
	}
}

func TestVectorsSequenceTracker(t *testing.T) {
	var v struct {
		Window int
		Cases  []struct {
			Name           string
			Arrivals       []uint64
			Fresh          []bool
			Duplicates     uint64
			OutOfOrder     uint64 `json:"out_of_order"`
			BeyondWindow   uint64 `json:"beyond_window"`
			HighestPlusOne uint64 `json:"highest_plus_one"`
		}
	}
	loadVectors(t, "sequence_tracker.json", &v)
	if v.Window != trackerWindow {
		t.Errorf("window %d, want %d", trackerWindow, v.Window)
	}
	for _, c := range v.Cases {
		var tr sequenceTracker
		fresh := []bool{}
		for _, s := range c.Arrivals {
			fresh = append(fresh, tr.record(s))
		}
		if !reflect.DeepEqual(fresh, c.Fresh) || tr.duplicates != c.Duplicates ||
			tr.outOfOrder != c.OutOfOrder || tr.beyondWindow != c.BeyondWindow ||
			tr.expected != c.HighestPlusOne {
			t.Errorf("%s: fresh %v dup %d ooo %d beyond %d highest+1 %d, want %v %d %d %d %d", c.Name,
				fresh, tr.duplicates, tr.outOfOrder, tr.beyondWindow, tr.expected, c.Fresh,
				c.Duplicates, c.OutOfOrder, c.BeyondWindow, c.HighestPlusOne)
		}
	}
}

// pieces is a byte stream handed over in the given pieces; a read takes at most the rest of
// the current piece.
type pieces struct {
	stream []byte
	reads  []int
	at     int
}

func (p *pieces) Export() string              { return "" }
func (p *pieces) Connect(time.Duration) error { return nil }
func (p *pieces) Send([]byte) error           { return nil }
func (p *pieces) Settings() map[string]string { return nil }
func (p *pieces) Close()                      {}
func (p *pieces) Stream() bool                { return true }
func (p *pieces) Reliable() bool              { return true }
func (p *pieces) Calls() (string, string)     { return "", "" }
func (p *pieces) Recv(buf []byte, _ time.Duration) (int, error) {
	for len(p.reads) > 0 && p.reads[0] == 0 {
		p.reads = p.reads[1:]
	}
	if len(p.reads) == 0 {
		return 0, io.EOF
	}
	want := len(buf)
	if p.reads[0] < want {
		want = p.reads[0]
	}
	n := copy(buf[:want], p.stream[p.at:])
	p.reads[0] -= n
	p.at += n
	return n, nil
}

func TestVectorsReassembly(t *testing.T) {
	var v struct {
		Cases []struct {
			Name        string
			Size        int   `json:"size_bytes"`
			StreamBytes int   `json:"stream_bytes"`
			Reads       []int `json:"reads"`
			Messages    int
			FirstBytes  []int `json:"first_bytes"`
		}
	}
	loadVectors(t, "reassembly.json", &v)
	for _, c := range v.Cases {
		stream := make([]byte, c.StreamBytes)
		for i := range stream {
			stream[i] = byte(i + 1)
		}
		r := NewReader(&pieces{stream: stream, reads: append([]int(nil), c.Reads...)}, c.Size)
		firsts := []int{}
		for k := 0; k <= c.Messages; k++ {
			m, err := r.Next(-1)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if m == nil {
				break
			}
			if string(m) != string(stream[k*c.Size:(k+1)*c.Size]) {
				t.Errorf("%s: message %d is not the stream's bytes", c.Name, k)
			}
			firsts = append(firsts, int(m[0]))
		}
		if !reflect.DeepEqual(firsts, c.FirstBytes) {
			t.Errorf("%s: first bytes %v, want %v", c.Name, firsts, c.FirstBytes)
		}
	}
}
