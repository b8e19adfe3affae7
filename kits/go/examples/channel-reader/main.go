// A kit that times *your* reader: the Go write-up's FIFO reader, a goroutine reading 100 bytes
// at a time and feeding a channel, the consumer taking the chunks from the channel. It wraps
// the Go kit's own pipe.fifo endpoint (the FIFO handshake, the worker protocol, the timing
// rules all stay the kit's) and replaces only how bytes are read. Build it as a kit folder of
// its own (CMake does: lib/ipcbench/kits/go-channel) and run it with
//
//	ipchost --plugin pipe.fifo --mode throughput --size 32 --count 1000000 \
//	        --impl receiver=native,go,go-channel
//
// to see the C reader, the Go kit's reader and this one side by side (kits/README.md).
package main

import (
	"os"
	"time"

	"ipcbench/kits/go/ipcbench"
)

const chunk = 100 // the write-up's read size

// channelReader reads the FIFO in 100-byte chunks on its own goroutine and hands them over a
// channel; Recv copies from the chunk it holds, as the write-up's consumer did.
type channelReader struct {
	ipcbench.Endpoint // the kit's FIFO: Connect, Send, Close, Settings as they are
	chunks            chan []byte
	held              []byte
}

func (c *channelReader) Connect(timeout time.Duration) error {
	if err := c.Endpoint.Connect(timeout); err != nil {
		return err
	}
	c.chunks = make(chan []byte, 1024)
	go func() {
		defer close(c.chunks)
		for {
			b := make([]byte, chunk)
			n, err := c.Endpoint.Recv(b, -1)
			if n > 0 {
				c.chunks <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	return nil
}

func (c *channelReader) Recv(buf []byte, timeout time.Duration) (int, error) {
	if len(c.held) == 0 {
		b, ok := <-c.chunks
		if !ok {
			return 0, ipcbench.Fail(ipcbench.StatusClosed, "the writer closed the FIFO")
		}
		c.held = b
	}
	n := copy(buf, c.held)
	c.held = c.held[n:]
	return n, nil
}

func (c *channelReader) Calls() (string, string) {
	send, _ := c.Endpoint.Calls()
	return send, "100-byte reads -> chan []byte"
}

func main() {
	ipcbench.Register("pipe.fifo", func(p ipcbench.OpenParams) (ipcbench.Endpoint, error) {
		ep, err := ipcbench.OpenBuiltin(p)
		if err != nil || p.Direction != ipcbench.Recv {
			return ep, err
		}
		return &channelReader{Endpoint: ep}, nil
	})
	os.Exit(ipcbench.Main("go-channel"))
}
