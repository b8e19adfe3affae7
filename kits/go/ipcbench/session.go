package ipcbench

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// Versions are the worker protocol versions this kit speaks.
var Versions = ProtocolVersions

type endpointSlot struct {
	ep        Endpoint
	direction string
}

// Session is one worker's conversation with the orchestrator
// (docs/worker-protocol.md, "A case, message by message").
type Session struct {
	ch             *Channel
	implementation string
	welcomed       bool
	endpoints      []endpointSlot
	rssBefore      int64
}

// NewSession over the control socket; implementation is the kit's manifest name.
func NewSession(conn net.Conn, implementation string) *Session {
	return &Session{ch: NewChannel(conn), implementation: implementation}
}

func peakRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss
}

// Serve runs the session; the process's exit code.
func (s *Session) Serve() int {
	s.ch.Send(map[string]interface{}{"type": "hello", "versions": Versions, "pid": os.Getpid(),
		"implementation": s.implementation, "runtime": runtime.Version()})
	for {
		m, err := s.ch.Receive(-1)
		if err != nil {
			if _, ok := err.(*ProtocolError); ok {
				s.error("control", StatusInvalid, "control channel: "+err.Error())
				return 2
			}
			return 1 // the orchestrator is gone
		}
		if m == nil {
			continue
		}
		done, err := s.dispatch(m)
		if done {
			return 0
		}
		if err != nil {
			status := StatusOf(err)
			if _, ok := err.(*ProtocolError); ok {
				status = StatusInvalid
			}
			s.error(m.Type(), status, err.Error())
		}
	}
}

func (s *Session) error(stage string, status int, text string) {
	s.ch.Send(map[string]interface{}{"type": "error", "stage": stage, "status": status, "message": text})
}

func clip(text string, n int) string {
	if len(text) > n {
		return text[:n]
	}
	return text
}

func (s *Session) dispatch(m Message) (bool, error) {
	kind := m.Type()
	switch {
	case kind == "welcome":
		var protocol string
		if err := m.Field("protocol", &protocol, true); err != nil {
			return false, err
		}
		for _, v := range Versions {
			if v == protocol {
				s.welcomed = true
				return false, nil
			}
		}
		return false, &ProtocolError{fmt.Sprintf("the orchestrator picked worker protocol '%s', which this worker did not offer", clip(protocol, 16))}
	case !s.welcomed:
		return false, &ProtocolError{fmt.Sprintf("a '%s' message before the 'welcome'", clip(kind, 32))}
	case kind == "setup":
		return false, s.setup(m)
	case kind == "connect":
		return false, s.connect(m)
	case kind == "run":
		return false, s.run(m)
	case kind == "sender_done":
		return false, nil // arrived after the receivers ended on their own
	case kind == "close":
		for _, e := range s.endpoints {
			e.ep.Close()
		}
		s.endpoints = nil
		s.ch.Send(map[string]string{"type": "closed"})
		return true, nil
	}
	return false, &ProtocolError{fmt.Sprintf("a worker takes no '%s' message", clip(kind, 32))}
}

type endpointSpec struct {
	Direction string `json:"direction"`
	Address   string `json:"address"`
}

// bindingKeyOf is protocol 1.1's binding_key in bytes: a connector of socket.tcp or udp.inet
// presents it (docs/worker-protocol.md, "Binding"); this kit binds no creator.
func bindingKeyOf(hexKey, transport, role string) ([]byte, error) {
	if hexKey == "" {
		return nil, nil
	}
	key, err := hex.DecodeString(hexKey)
	if err != nil || len(hexKey) < 32 || len(hexKey) > 128 {
		return nil, &ProtocolError{"setup message field 'binding_key' must be 32 to 128 hex digits"}
	}
	if (transport != "socket.tcp" && transport != "udp.inet") || role == Creator {
		return nil, Fail(StatusUnsupported, "this kit binds only a connector of socket.tcp or udp.inet to its peer, not a %s of %s", role, clip(transport, 40))
	}
	return key, nil
}

func (s *Session) setup(m Message) error {
	var transport, role, runtimeDir, bindingHex string
	var specs []endpointSpec
	options := map[string]string{}
	var maxMessage int
	for _, f := range []struct {
		name     string
		v        interface{}
		required bool
	}{{"transport", &transport, true}, {"role", &role, true}, {"endpoints", &specs, true},
		{"options", &options, false}, {"runtime_dir", &runtimeDir, false},
		{"max_message_size", &maxMessage, false}, {"binding_key", &bindingHex, false}} {
		if err := m.Field(f.name, f.v, f.required); err != nil {
			return err
		}
	}
	if role != Creator && role != Connector {
		return &ProtocolError{fmt.Sprintf("setup message field 'role' has the unknown value '%s'", clip(role, 32))}
	}
	bindingKey, err := bindingKeyOf(bindingHex, transport, role)
	if err != nil {
		return err
	}
	if len(s.endpoints) == 0 {
		s.rssBefore = peakRSS()
	}
	addresses := []string{}
	for i, spec := range specs {
		if spec.Direction != Send && spec.Direction != Recv && spec.Direction != Both {
			return &ProtocolError{fmt.Sprintf("setup message field 'endpoints'[%d] field 'direction' has the unknown value '%s'", i, clip(spec.Direction, 32))}
		}
		ep, err := Open(OpenParams{Transport: transport, Role: role, Direction: spec.Direction,
			Address: spec.Address, Options: options, RuntimeDir: runtimeDir, MaxMessage: maxMessage,
			BindingKey: bindingKey})
		if err != nil {
			return err
		}
		s.endpoints = append(s.endpoints, endpointSlot{ep, spec.Direction})
		if role == Creator {
			addresses = append(addresses, ep.Export())
		} else {
			addresses = append(addresses, spec.Address)
		}
	}
	return s.ch.Send(map[string]interface{}{"type": "opened", "addresses": addresses})
}

func (s *Session) connect(m Message) error {
	var timeoutNs int64
	if err := m.Field("timeout_ns", &timeoutNs, true); err != nil {
		return err
	}
	each := NewHistogram()
	start := Now()
	for _, e := range s.endpoints {
		before := Now()
		if err := e.ep.Connect(time.Duration(timeoutNs)); err != nil {
			return err
		}
		each.Record(Now() - before)
	}
	total := Now() - start
	settings := map[string]string{}
	for i := 0; i < len(s.endpoints) && i < 2; i++ {
		for k, v := range s.endpoints[i].ep.Settings() {
			if _, ok := settings[k]; !ok {
				settings[k] = v
			}
		}
	}
	return s.ch.Send(map[string]interface{}{"type": "connected", "settings": settings,
		"setup": map[string]interface{}{"connections": len(s.endpoints), "total_ns": total,
			"histogram": each.JSON(), "rss_before_kib": s.rssBefore}})
}

type task struct {
	part   string
	stream int
	p      *Progress
	run    func(*Progress) *LoopResult
}

func (s *Session) endpointFor(directions []string, streams, stream int, dir string) (Endpoint, error) {
	per := len(s.endpoints) / streams
	for i := stream * per; i < (stream+1)*per; i++ {
		if directions[i] == dir || directions[i] == Both {
			return s.endpoints[i].ep, nil
		}
	}
	return nil, Fail(StatusInvalid, "no %s endpoint in stream %d", dir, stream)
}

func (s *Session) tasks(j *Job, directions []string) ([]*task, error) {
	parts := []string{j.Kind}
	if j.Kind == "bidir" {
		parts = []string{"receive", "send"}
	}
	var out []*task
	for k := 0; k < j.Case.Streams; k++ {
		for _, part := range parts {
			sendEP, err1 := s.endpointFor(directions, j.Case.Streams, k, Send)
			recvEP, err2 := s.endpointFor(directions, j.Case.Streams, k, Recv)
			t := &task{part: part, stream: k, p: &Progress{}}
			t.p.PeerSent.Store(-1)
			switch part {
			case "send":
				if err1 != nil {
					return nil, err1
				}
				t.run = func(p *Progress) *LoopResult { return RunSender(sendEP, j, p) }
			case "receive":
				if err2 != nil {
					return nil, err2
				}
				t.run = func(p *Progress) *LoopResult { return RunReceiver(recvEP, j, p) }
			case "ping", "pong":
				if err1 != nil || err2 != nil {
					return nil, Fail(StatusInvalid, "stream %d lacks an endpoint", k)
				}
				if part == "ping" {
					t.run = func(p *Progress) *LoopResult { return RunPinger(sendEP, recvEP, j, p) }
				} else {
					t.run = func(p *Progress) *LoopResult { return RunPonger(recvEP, sendEP, j, p) }
				}
			default:
				return nil, Fail(StatusUnsupported, "this kit runs no '%s' job (a conformance check job is for the native worker)", clip(part, 32))
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *Session) run(m Message) error {
	var j Job
	var directions []string
	j.CPU = -1
	if err := m.Field("job", &j, true); err != nil {
		return err
	}
	if err := m.Field("directions", &directions, true); err != nil {
		return err
	}
	if j.Case.Streams < 1 || len(directions) != len(s.endpoints) || len(s.endpoints)%j.Case.Streams != 0 {
		return &ProtocolError{"endpoint layout does not match the job"}
	}
	tasks, err := s.tasks(&j, directions)
	if err != nil {
		return err
	}
	if j.CPU >= 0 {
		if err := pinProcess(j.CPU); err != nil {
			r := newResult(tasks[0].part, "")
			r.fail(err, "--affinity")
			tasks = tasks[:1]
			tasks[0].p.Result = r
			return s.report(tasks)
		}
	}
	finished := make(chan struct{}, len(tasks))
	for _, t := range tasks {
		go func(t *task) {
			defer func() {
				if e := recover(); e != nil {
					t.p.Result = newResult(t.part, "").fail(fmt.Errorf("panic: %v", e), t.part)
				}
				t.p.Finished.Store(true)
				finished <- struct{}{}
			}()
			t.p.Result = t.run(t.p)
		}(t)
	}
	s.serveRun(&j, tasks, finished)
	return s.report(tasks)
}

// pinProcess pins every thread of the process (the runtime's too) to one CPU; threads
// started later inherit it.
func pinProcess(cpu int) error {
	if cpu >= 1024 {
		return Fail(StatusInvalid, "CPU %d is out of range", cpu)
	}
	var mask [16]uint64
	mask[cpu/64] = 1 << uint(cpu%64)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(t.Name())
		if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0]))); errno != 0 {
			return Fail(StatusInvalid, "cannot run on CPU %d: %v", cpu, errno)
		}
	}
	return nil
}

func (s *Session) serveRun(j *Job, tasks []*task, finished chan struct{}) {
	sendsSomething := j.Kind == "send" || j.Kind == "bidir"
	sentReported := !sendsSomething
	iv := newIntervals(j, tasks, s.ch)
	// Only interval reports and an unreliable receiver (it needs sender_done) need the channel
	// served while the streams run; otherwise this goroutine sleeps until a stream ends, so
	// nothing wakes beside the timed loops (a 20 ms poll cost a plain loop's round trip 20 %).
	receives := false
	for _, t := range tasks {
		receives = receives || t.part == "receive"
	}
	idle := iv.intervalNs == 0 && (j.Reliable || !receives)
	for {
		allDone, sendersDone := true, true
		for _, t := range tasks {
			done := t.p.Finished.Load()
			allDone = allDone && done
			if t.part == "send" {
				sendersDone = sendersDone && done
			}
			if done && t.p.Result != nil && t.p.Result.Error != "" {
				s.report([]*task{t})
				for { // the orchestrator ends the case; wait to be ended
					if _, err := s.ch.Receive(-1); err != nil {
						os.Exit(1)
					}
				}
			}
		}
		if sendersDone && !sentReported {
			counts := []uint64{}
			for _, t := range tasks {
				if t.part == "send" {
					counts = append(counts, t.p.Result.Counters[cSent])
				}
			}
			s.ch.Send(map[string]interface{}{"type": "sent", "streams": counts})
			sentReported = true
		}
		if allDone {
			iv.last()
			return
		}
		if idle {
			<-finished
			continue
		}
		iv.due()
		wait := 20 * time.Millisecond
		if left := time.Duration(iv.next - Now()); left < wait {
			wait = left
		}
		if wait < 0 {
			wait = 0
		}
		m, err := s.ch.Receive(wait)
		if err == nil && m != nil && m.Type() == "sender_done" {
			var counts []int64
			if m.Field("streams", &counts, true) == nil {
				k := 0
				for _, t := range tasks {
					if t.part == "receive" {
						if k < len(counts) {
							t.p.PeerSent.Store(counts[k])
						}
						k++
					}
				}
			}
		}
	}
}

func (r *LoopResult) json() map[string]interface{} {
	out := map[string]interface{}{"part": r.Part, "ended_by": r.EndedBy, "first_ns": r.FirstNs,
		"end_ns": r.EndNs, "path": r.Path, "usage": r.Usage, "histogram": nil,
		"thread_id": r.ThreadID, "error": r.Error, "status": r.Status}
	for i, name := range counterNames {
		out[name] = r.Counters[i]
	}
	if r.Histogram != nil {
		out["histogram"] = r.Histogram.JSON()
	}
	return out
}

func summed(part string, streams []*LoopResult) map[string]interface{} {
	sum := &LoopResult{Part: part, Path: streams[0].Path, ThreadID: streams[0].ThreadID}
	rows := [][]interface{}{}
	errs := []map[string]interface{}{}
	first := int64(0)
	for k, s := range streams {
		for i := range sum.Counters {
			sum.Counters[i] += s.Counters[i]
		}
		if sum.EndedBy == "" {
			sum.EndedBy = s.EndedBy
		}
		if s.FirstNs > 0 && (first == 0 || s.FirstNs < first) {
			first = s.FirstNs
		}
		if s.EndNs > sum.EndNs {
			sum.EndNs = s.EndNs
		}
		// Each stream's usage is the process's over its window (loops.go): the largest.
		if s.Usage.CPUUserS+s.Usage.CPUSysS > sum.Usage.CPUUserS+sum.Usage.CPUSysS {
			sum.Usage.CPUUserS, sum.Usage.CPUSysS = s.Usage.CPUUserS, s.Usage.CPUSysS
			sum.Usage.VoluntaryCS, sum.Usage.InvolunCS = s.Usage.VoluntaryCS, s.Usage.InvolunCS
		}
		sum.Usage.CPUsSeen |= s.Usage.CPUsSeen
		if s.Histogram != nil {
			if sum.Histogram == nil {
				sum.Histogram = NewHistogram()
			}
			sum.Histogram.Merge(s.Histogram)
		}
		if s.Error != "" && sum.Error == "" {
			sum.Error, sum.Status = s.Error, s.Status
			if len(streams) > 1 {
				sum.Error += fmt.Sprintf(" (stream %d)", k)
			}
		}
		row := []interface{}{}
		for _, c := range s.Counters {
			row = append(row, c)
		}
		row = append(row, s.FirstNs, s.EndNs, s.ThreadID, s.Usage.CPUUserS, s.Usage.CPUSysS, s.Status)
		rows = append(rows, row)
		if s.Error != "" {
			errs = append(errs, map[string]interface{}{"stream": k, "error": s.Error})
		}
	}
	sum.FirstNs = first
	sum.Usage.MaxRSSKiB = peakRSS()
	out := sum.json()
	out["streams"] = map[string]interface{}{"rows": rows, "errors": errs}
	return out
}

func (s *Session) report(tasks []*task) error {
	parts := []map[string]interface{}{}
	message := map[string]interface{}{"type": "result"}
	for _, part := range []string{"receive", "send", "ping", "pong"} {
		var streams []*LoopResult
		for _, t := range tasks {
			if t.part == part && t.p.Result != nil {
				streams = append(streams, t.p.Result)
			}
		}
		if len(streams) == 0 {
			continue
		}
		p := summed(part, streams)
		if e := p["error"].(string); e != "" {
			if _, ok := message["error"]; !ok {
				message["error"], message["status"] = e, p["status"]
			}
		}
		parts = append(parts, p)
	}
	message["parts"] = parts
	message["kit"] = kitFigures()
	return s.ch.Send(message)
}

// kitFigures: what the Go runtime says of its own work during the case.
func kitFigures() map[string]interface{} {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var stats debug.GCStats
	debug.ReadGCStats(&stats)
	figures := map[string]interface{}{"gc_cycles": ms.NumGC, "gc_pause_ns": ms.PauseTotalNs,
		"heap_bytes": ms.HeapAlloc, "goroutines": runtime.NumGoroutine(),
		// the Ps the scheduler ran with: the CPUs the process could use when it started
		"gomaxprocs": runtime.GOMAXPROCS(0)}
	if bufioInUse {
		figures["underlying_reads"] = underlyingRead.Load()
	}
	return figures
}

type intervals struct {
	size                       int
	intervalNs, start, lastEnd int64
	next                       int64
	tasks                      []*task
	ch                         *Channel
	lastMessages, lastLost     uint64
}

func newIntervals(j *Job, tasks []*task, ch *Channel) *intervals {
	iv := &intervals{size: j.Case.SizeBytes, intervalNs: int64(j.Case.IntervalS * 1e9), ch: ch}
	for _, t := range tasks {
		if t.part == "receive" || t.part == "ping" {
			iv.tasks = append(iv.tasks, t)
		}
	}
	iv.start = Now() + int64(j.Case.WarmupS*1e9)
	iv.lastEnd = iv.start
	iv.next = 1 << 62
	if iv.intervalNs > 0 {
		iv.next = iv.start + iv.intervalNs
	}
	return iv
}

func (iv *intervals) due() {
	now := Now()
	if now < iv.next {
		return
	}
	iv.send(now, false)
	for iv.next <= now {
		iv.next += iv.intervalNs
	}
}

func (iv *intervals) last() {
	iv.due()
	now := Now()
	if iv.intervalNs > 0 && now > iv.lastEnd {
		iv.send(now, (now-iv.lastEnd)*100 < iv.intervalNs)
	}
}

func (iv *intervals) send(now int64, onlyIfNew bool) {
	if len(iv.tasks) == 0 {
		return
	}
	var messages, expected uint64
	for _, t := range iv.tasks {
		messages += t.p.Messages.Load()
		expected += t.p.ExpectedNext.Load()
	}
	if onlyIfNew && messages == iv.lastMessages {
		return
	}
	lost := uint64(0)
	if expected > messages {
		lost = expected - messages
	}
	newLost := uint64(0)
	if lost > iv.lastLost {
		newLost = lost - iv.lastLost
	}
	n := messages - iv.lastMessages
	iv.ch.Send(map[string]interface{}{"type": "interval", "end_s": float64(now-iv.start) / 1e9,
		"seconds": float64(now-iv.lastEnd) / 1e9, "messages": n, "bytes": n * uint64(iv.size),
		"lost": newLost})
	iv.lastMessages, iv.lastLost, iv.lastEnd = messages, lost, now
}

// Main is a kit worker's main: --runtime-version, or --control-socket FD.
func Main(implementation string) int {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "--runtime-version" {
		fmt.Println(runtime.Version())
		return 0
	}
	fd := -1
	if len(args) == 4 && args[0] == "--api" && args[1] == "bufio" {
		UseBufio()
		implementation += ":bufio" // it names itself as ipchost named it: KIT:API
		args = args[2:]
	}
	if len(args) == 2 && args[0] == "--control-socket" {
		fd, _ = strconv.Atoi(args[1])
	}
	if fd < 0 {
		fmt.Fprintf(os.Stderr, "usage: %s [--api bufio] --control-socket FD (ipchost starts this worker: ipchost --impl %s ...; docs/worker-protocol.md)\n", filepath.Base(os.Args[0]), implementation)
		return 2
	}
	conn, err := net.FileConn(os.NewFile(uintptr(fd), "control"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "control socket %d: %v\n", fd, err)
		return 2
	}
	return NewSession(conn, implementation).Serve()
}
