package ipcbench

import (
	"bufio"
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// The bufio API (--api bufio, `--impl go:bufio`): the byte streams through bufio.NewReader and
// bufio.NewWriter (their default 4 KiB buffers) over the same *os.File or net.Conn, as a Go
// program that reads with bufio.NewReader and io.ReadFull does: one read(2) takes as many messages as are waiting. The
// writer writes when its buffer fills, when the end marker goes (the loop is done), or before
// any receive of the process blocks (a request-response program Flushes before it waits for
// the answer). The kit figure `underlying_reads` counts the reads that reached the transport.

var (
	bufioWriters   sync.Map     // *bufioEndpoint with a writer -> struct{}
	unflushed      atomic.Int32 // writers holding bytes: a receive flushes only when some do
	underlyingRead atomic.Int64
)

type bufioEndpoint struct {
	Endpoint
	r  *bufio.Reader
	mu sync.Mutex // the writer: its loop, and another stream's flush before a receive
	w  *bufio.Writer
}

// inner adapts the kit's Endpoint to io.Reader / io.Writer for bufio.
type inner struct{ e Endpoint }

func (i inner) Read(p []byte) (int, error) {
	underlyingRead.Add(1)
	return i.e.Recv(p, -1)
}

func (i inner) Write(p []byte) (int, error) {
	if err := i.e.Send(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

var bufioInUse bool

// UseBufio registers the bufio form of each byte-stream transport.
func UseBufio() {
	bufioInUse = true
	for _, id := range []string{"pipe.fifo", "socket.unix", "socket.tcp"} {
		builtin := builtins[id]
		factories[id] = func(p OpenParams) (Endpoint, error) {
			e, err := builtin(p)
			if err != nil {
				return nil, err
			}
			return &bufioEndpoint{Endpoint: e}, nil
		}
	}
	for _, id := range []string{"udp.inet", "mq.sysv", "mq.posix"} {
		delete(factories, id) // a datagram is one read already: nothing to buffer
	}
}

func (b *bufioEndpoint) Connect(timeout time.Duration) error {
	if err := b.Endpoint.Connect(timeout); err != nil {
		return err
	}
	b.r = bufio.NewReader(inner{b.Endpoint})
	b.w = bufio.NewWriter(inner{b.Endpoint})
	bufioWriters.Store(b, struct{}{})
	return nil
}

func (b *bufioEndpoint) Calls() (string, string) {
	return "(*bufio.Writer).Write", "(*bufio.Reader).Read"
}

func (b *bufioEndpoint) Send(m []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	held := b.w.Buffered() > 0
	if _, err := b.w.Write(m); err != nil {
		return err
	}
	if len(m) >= 8 && binary.LittleEndian.Uint64(m)&FlagEnd != 0 {
		if err := b.w.Flush(); err != nil {
			return err
		}
	}
	if now := b.w.Buffered() > 0; now != held {
		if now {
			unflushed.Add(1)
		} else {
			unflushed.Add(-1)
		}
	}
	return nil
}

func (b *bufioEndpoint) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w.Buffered() == 0 {
		return nil
	}
	unflushed.Add(-1)
	return b.w.Flush()
}

// Recv reads from the buffer; when it is empty (the read may wait) it first flushes what this
// process wrote, as a program Flushes before it waits for an answer. A timeout applies to the
// transport's read.
func (b *bufioEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	if b.r.Buffered() == 0 && unflushed.Load() > 0 {
		var failed error
		bufioWriters.Range(func(k, _ interface{}) bool {
			if err := k.(*bufioEndpoint).flush(); err != nil {
				failed = err
			}
			return failed == nil
		})
		if failed != nil {
			return 0, failed
		}
	}
	if timeout >= 0 && b.r.Buffered() == 0 {
		underlyingRead.Add(1)
		return b.Endpoint.Recv(buf, timeout)
	}
	n, err := b.r.Read(buf)
	if n > 0 {
		return n, nil
	}
	if err == nil {
		err = io.EOF
	}
	return 0, err
}

func (b *bufioEndpoint) Close() {
	bufioWriters.Delete(b)
	b.Endpoint.Close()
}
