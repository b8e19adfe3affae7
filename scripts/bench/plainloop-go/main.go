// The plain Go loop the Go kit is measured against (scripts/bench.sh): the same calls a Go
// program makes, in two processes, with nothing around them. A writer and a reader on a FIFO
// (os.OpenFile: the runtime poller) or a Unix stream socket (net.Dial/Listen), SIZE-byte
// messages back to back for SECONDS; the reader times first to last message. lat: ping-pong
// over a Unix socket, the median round trip.
//
//	plainloop tput fifo|unix SIZE SECONDS   -> mb_per_sec=X
//	plainloop lat unix SIZE SECONDS         -> p50_ns=X
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "plainloop:", err)
		os.Exit(1)
	}
}

func writer(kind, path string, size int, seconds float64) {
	var w io.Writer
	if kind == "fifo" {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		must(err)
		defer f.Close()
		w = f
	} else {
		c, err := net.Dial("unix", path)
		must(err)
		defer c.Close()
		w = c
	}
	m := make([]byte, size)
	end := time.Now().Add(time.Duration(seconds * 1e9))
	for n := 0; ; n++ {
		if _, err := w.Write(m); err != nil {
			return
		}
		if n%16 == 0 && time.Now().After(end) {
			return
		}
	}
}

func reader(r io.Reader, size int) float64 {
	m := make([]byte, size)
	var total int64
	var first, last time.Time
	for {
		got := 0
		for got < size {
			n, err := r.Read(m[got:])
			if err != nil {
				if total == 0 || last.Sub(first) <= 0 {
					return 0
				}
				return float64(total) / last.Sub(first).Seconds() / 1e6
			}
			got += n
		}
		if total == 0 {
			first = time.Now()
		}
		total += int64(size)
		last = time.Now()
	}
}

func pong(path string, size int) {
	c, err := net.Dial("unix", path)
	must(err)
	m := make([]byte, size)
	for {
		if _, err := io.ReadFull(c, m); err != nil {
			return
		}
		if _, err := c.Write(m); err != nil {
			return
		}
	}
}

func main() {
	mode, kind := os.Args[1], os.Args[2]
	size, _ := strconv.Atoi(os.Args[3])
	seconds, _ := strconv.ParseFloat(os.Args[4], 64)
	if len(os.Args) > 5 { // the child: writer or ponger
		if mode == "lat" {
			pong(os.Args[5], size)
		} else {
			writer(kind, os.Args[5], size, seconds)
		}
		return
	}
	dir, err := os.MkdirTemp("", "plainloop-")
	must(err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p")
	var l net.Listener
	if kind == "fifo" {
		must(syscall.Mkfifo(path, 0600))
	} else {
		l, err = net.Listen("unix", path)
		must(err)
	}
	child := exec.Command(os.Args[0], mode, kind, os.Args[3], os.Args[4], path)
	// PLAINLOOP_CHILD_CPU=N: the child (writer, ponger) on CPU N, as ipchost --affinity pins
	// the other side; the parent is pinned by whoever starts it (taskset).
	if cpu := os.Getenv("PLAINLOOP_CHILD_CPU"); cpu != "" {
		child = exec.Command("taskset", "-c", cpu, os.Args[0], mode, kind, os.Args[3], os.Args[4], path)
	}
	child.Stderr = os.Stderr
	must(child.Start())
	defer child.Wait()
	if mode == "lat" {
		c, err := l.Accept()
		must(err)
		m := make([]byte, size)
		var rtts []int64
		end := time.Now().Add(time.Duration(seconds * 1e9))
		for time.Now().Before(end) {
			t0 := time.Now()
			c.Write(m)
			io.ReadFull(c, m)
			rtts = append(rtts, time.Since(t0).Nanoseconds())
		}
		c.Close()
		sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
		fmt.Printf("p50_ns=%d\n", rtts[len(rtts)/2])
		return
	}
	var r io.Reader
	if kind == "fifo" {
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		must(err)
		defer f.Close()
		r = f
	} else {
		c, err := l.Accept()
		must(err)
		r = c
	}
	fmt.Printf("mb_per_sec=%.3f\n", reader(r, size))
}
