// Package ipcbench is the Go kit: a worker that takes one side of an ipchost case, and the
// pieces to time your own Go code the same way (docs/worker-protocol.md; README.md here).
package ipcbench

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// MaxFrameBytes and the Status* codes come from the protocol's definition
// (protocol_generated.go, from protocol/worker-protocol.json).

// Error is a failure with its status code.
type Error struct {
	Status int
	Text   string
}

func (e *Error) Error() string { return e.Text }

// Fail makes an *Error.
func Fail(status int, format string, args ...interface{}) error {
	return &Error{status, fmt.Sprintf(format, args...)}
}

// StatusOf is the status code of err: its own, or a timeout, a close or a system error.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return StatusTimeout
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return StatusClosed
	}
	return StatusSystem
}

// ProtocolError is what the orchestrator sent that this worker cannot read.
type ProtocolError struct{ Text string }

func (e *ProtocolError) Error() string { return e.Text }

// Message is one control message: its "type" and its fields as JSON.
type Message map[string]json.RawMessage

// Type is the message's "type".
func (m Message) Type() string {
	var t string
	_ = json.Unmarshal(m["type"], &t)
	return t
}

// Field reads one field into v; a missing or mistyped field is a ProtocolError naming it.
func (m Message) Field(name string, v interface{}, required bool) error {
	raw, ok := m[name]
	if !ok {
		if required {
			return &ProtocolError{fmt.Sprintf("%s message field '%s' is missing", m.Type(), name)}
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &ProtocolError{fmt.Sprintf("%s message field '%s' has the wrong type", m.Type(), name)}
	}
	return nil
}

// Channel is the control channel: 4-byte big-endian lengths, then JSON.
type Channel struct {
	conn    net.Conn
	pending []byte
}

// NewChannel wraps the control socket.
func NewChannel(conn net.Conn) *Channel { return &Channel{conn: conn} }

// Send writes one message.
func (c *Channel) Send(message interface{}) error {
	body, err := json.Marshal(message)
	if err != nil {
		return err
	}
	frame := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	copy(frame[4:], body)
	_, err = c.conn.Write(frame)
	return err
}

func (c *Channel) next() (Message, error) {
	if len(c.pending) < 4 {
		return nil, nil
	}
	n := binary.BigEndian.Uint32(c.pending)
	if n > MaxFrameBytes {
		return nil, &ProtocolError{fmt.Sprintf("a frame of %d bytes (at most %d)", n, MaxFrameBytes)}
	}
	if uint32(len(c.pending)-4) < n {
		return nil, nil
	}
	body := c.pending[4 : 4+n]
	c.pending = append([]byte(nil), c.pending[4+n:]...)
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &ProtocolError{"a frame that is not a JSON object: " + err.Error()}
	}
	var t string
	if raw, ok := m["type"]; !ok || json.Unmarshal(raw, &t) != nil {
		return nil, &ProtocolError{"a message without a string 'type'"}
	}
	return m, nil
}

// Receive returns the next message; nil, nil when the timeout (< 0: none) passed first, and
// io.EOF when the orchestrator closed the channel.
func (c *Channel) Receive(timeout time.Duration) (Message, error) {
	deadline := time.Time{}
	if timeout >= 0 {
		deadline = time.Now().Add(timeout)
	}
	buf := make([]byte, 65536)
	for {
		m, err := c.next()
		if m != nil || err != nil {
			return m, err
		}
		_ = c.conn.SetReadDeadline(deadline)
		n, err := c.conn.Read(buf)
		c.pending = append(c.pending, buf[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				if m, perr := c.next(); m != nil || perr != nil {
					return m, perr
				}
				return nil, nil
			}
			return nil, io.EOF
		}
	}
}
