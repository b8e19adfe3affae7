// A Go writer and reader of fixed-size records on each transport the Go kit offers, written the
// way Go's documentation shows each one. Shares no code with kits/go.
//
//	file   pipe.fifo: os.OpenFile and (*os.File).Read / Write (pkg.go.dev/os)
//	       socket.unix, socket.tcp: net.Listen / Accept / net.Dial, net.Conn Read / Write
//	       (pkg.go.dev/net), io.ReadFull of each record (pkg.go.dev/io#ReadFull)
//	       udp.inet: net.ListenPacket and ReadFrom; net.Dial("udp") and Write (pkg.go.dev/net)
//	       mq.sysv, mq.posix: the system calls through syscall.Syscall6 (neither the syscall
//	       package nor golang.org/x/sys wraps msgsnd or mq_timedsend: Go programs call them so)
//	bufio  the same file or connection through bufio.NewReader / bufio.NewWriter with io.ReadFull
//	       of each record and Flush at the end (pkg.go.dev/bufio)
//
//	records read TRANSPORT PATH SIZE API WARMUP     makes the endpoint, writes PATH.ready with
//	                                                what the writer opens, reads until the end
//	records write TRANSPORT ENDPOINT SIZE API SECONDS
//
// The reader prints "mb_per_sec=..." over the records that arrived from WARMUP seconds after the
// first to the end (EOF on a stream, an empty message on a datagram or queue).
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "records:", err)
	os.Exit(1)
}

func check(err error) {
	if err != nil {
		fail(err)
	}
}

// ready tells the writer where the endpoint is: written whole, then renamed.
func ready(path, endpoint string) {
	check(os.WriteFile(path+".ready.tmp", []byte(endpoint), 0600))
	check(os.Rename(path+".ready.tmp", path+".ready"))
}

// meter counts the records that arrive from warmup after the first.
type meter struct {
	size        int
	warmup      time.Duration
	first, from time.Time
	n, fromN    int
	warmed      bool
}

func (m *meter) got() {
	m.n++
	if m.n == 1 {
		m.first = time.Now()
	} else if !m.warmed && m.n%16 == 0 {
		if now := time.Now(); now.Sub(m.first) >= m.warmup {
			m.from, m.fromN, m.warmed = now, m.n, true
		}
	}
}

func (m *meter) report() {
	if !m.warmed {
		fail(fmt.Errorf("the run ended within its warm-up (%d records)", m.n))
	}
	s := time.Since(m.from).Seconds()
	fmt.Printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f\n", float64((m.n-m.fromN)*m.size)/s/1e6, float64(m.n-m.fromN)/s, s)
}

func readStream(r io.Reader, api string, m *meter) {
	if api == "bufio" {
		r = bufio.NewReader(r)
	}
	record := make([]byte, m.size)
	for {
		if _, err := io.ReadFull(r, record); err == io.EOF {
			return
		} else if err != nil {
			fail(err)
		}
		m.got()
	}
}

func writeStream(w io.Writer, api string, size int, until time.Time) {
	var bw *bufio.Writer
	if api == "bufio" {
		bw = bufio.NewWriter(w)
		w = bw
	}
	record := make([]byte, size)
	for i := 0; ; i++ {
		if i%16 == 0 && time.Now().After(until) {
			break
		}
		_, err := w.Write(record)
		check(err)
	}
	if bw != nil {
		check(bw.Flush())
	}
}

func read(transport, path string, m *meter, api string) {
	switch transport {
	case "pipe.fifo":
		check(syscall.Mkfifo(path, 0600))
		ready(path, path)
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		check(err)
		readStream(f, api, m)
	case "socket.unix", "socket.tcp":
		network, addr := "unix", path
		if transport == "socket.tcp" {
			network, addr = "tcp", "127.0.0.1:0"
		}
		ln, err := net.Listen(network, addr)
		check(err)
		ready(path, ln.Addr().String())
		conn, err := ln.Accept()
		check(err)
		ln.Close()
		readStream(conn, api, m)
	case "udp.inet":
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		check(err)
		ready(path, pc.LocalAddr().String())
		buf := make([]byte, 65536)
		for {
			n, _, err := pc.ReadFrom(buf)
			check(err)
			if n == 0 {
				return
			}
			m.got()
		}
	case "mq.sysv":
		readSysv(path, m)
	case "mq.posix":
		readPosix(path, m)
	default:
		fail(fmt.Errorf("no transport %s", transport))
	}
}

func write(transport, endpoint string, size int, api string, until time.Time) {
	switch transport {
	case "pipe.fifo":
		f, err := os.OpenFile(endpoint, os.O_WRONLY, 0)
		check(err)
		writeStream(f, api, size, until)
		f.Close()
	case "socket.unix", "socket.tcp", "udp.inet":
		network := map[string]string{"socket.unix": "unix", "socket.tcp": "tcp", "udp.inet": "udp"}[transport]
		conn, err := net.Dial(network, endpoint)
		check(err)
		if transport != "udp.inet" {
			writeStream(conn, api, size, until)
		} else {
			writeDatagrams(conn, size, until)
		}
		conn.Close()
	case "mq.sysv":
		writeSysv(endpoint, size, until)
	case "mq.posix":
		writePosix(endpoint, size, until)
	}
}

func writeDatagrams(conn net.Conn, size int, until time.Time) {
	record := make([]byte, size)
	for i := 0; ; i++ {
		if i%16 == 0 && time.Now().After(until) {
			break
		}
		if _, err := conn.Write(record); err != nil && !strings.Contains(err.Error(), "refused") {
			fail(err)
		}
	}
	for i := 0; i < 20; i++ { // the end: empty datagrams, spaced, in case the first are dropped
		conn.Write(nil)
		time.Sleep(5 * time.Millisecond)
	}
}

// System V: msgget(IPC_PRIVATE), then msgsnd / msgrcv of a message whose first 8 bytes are its
// type; an empty message ends the run.
func readSysv(path string, m *meter) {
	q, _, errno := syscall.Syscall(syscall.SYS_MSGGET, 0, 01000|0600, 0)
	if errno != 0 {
		fail(errno)
	}
	defer syscall.Syscall(syscall.SYS_MSGCTL, q, 0 /* IPC_RMID */, 0)
	ready(path, strconv.Itoa(int(q)))
	receiveQueue(syscall.SYS_MSGRCV, q, make([]byte, 8+m.size), m)
}

// receiveQueue counts the messages of msgrcv(q, buf, size, 0, 0) or mq_timedreceive(q, buf, size,
// NULL, NULL) (the same arguments) until an empty one.
func receiveQueue(trap, q uintptr, buf []byte, m *meter) {
	for {
		n, _, errno := syscall.Syscall6(trap, q, uintptr(unsafe.Pointer(&buf[0])), uintptr(m.size), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		} else if errno != 0 {
			fail(errno)
		}
		if n == 0 {
			return
		}
		m.got()
	}
}

func writeSysv(endpoint string, size int, until time.Time) {
	q, _ := strconv.Atoi(endpoint)
	buf := make([]byte, 8+size)
	buf[0] = 1 // mtype 1, little-endian
	sendQueue(syscall.SYS_MSGSND, uintptr(q), buf, size, until)
}

// sendQueue sends size-byte messages by msgsnd(q, buf, size, 0) or mq_timedsend(q, buf, size, 0,
// NULL) (the same arguments) until the deadline, then an empty one.
func sendQueue(trap, q uintptr, buf []byte, size int, until time.Time) {
	send := func(n int) {
		for {
			_, _, errno := syscall.Syscall6(trap, q, uintptr(unsafe.Pointer(&buf[0])), uintptr(n), 0, 0, 0)
			if errno == 0 {
				return
			} else if errno != syscall.EINTR {
				fail(errno)
			}
		}
	}
	for i := 0; ; i++ {
		if i%16 == 0 && time.Now().After(until) {
			break
		}
		send(size)
	}
	send(0)
}

// POSIX: mq_open (the kernel takes the name without its '/'), mq_timedsend / mq_timedreceive
// without a timeout; an empty message ends the run.
func mqOpen(name string, flags int, attr *[8]int64) uintptr {
	b, err := syscall.BytePtrFromString(strings.TrimPrefix(name, "/"))
	check(err)
	fd, _, errno := syscall.Syscall6(syscall.SYS_MQ_OPEN, uintptr(unsafe.Pointer(b)), uintptr(flags), 0600, uintptr(unsafe.Pointer(attr)), 0, 0)
	if errno != 0 {
		fail(fmt.Errorf("mq_open %s: %v", name, errno))
	}
	return fd
}

func readPosix(path string, m *meter) {
	name := fmt.Sprintf("/records-go-%d", os.Getpid())
	attr := [8]int64{0, 10, int64(m.size)} // flags, maxmsg (the default 10), msgsize
	fd := mqOpen(name, os.O_RDONLY|os.O_CREATE|os.O_EXCL, &attr)
	b, _ := syscall.BytePtrFromString(name[1:])
	defer syscall.Syscall(syscall.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(b)), 0, 0)
	ready(path, name)
	receiveQueue(syscall.SYS_MQ_TIMEDRECEIVE, fd, make([]byte, m.size), m)
}

func writePosix(endpoint string, size int, until time.Time) {
	sendQueue(syscall.SYS_MQ_TIMEDSEND, mqOpen(endpoint, os.O_WRONLY, nil), make([]byte, size), size, until)
}

func main() {
	if len(os.Args) != 7 || (os.Args[1] != "read" && os.Args[1] != "write") {
		fmt.Fprintln(os.Stderr, "usage: records read TRANSPORT PATH SIZE API WARMUP | write TRANSPORT ENDPOINT SIZE API SECONDS")
		os.Exit(2)
	}
	transport, where, api := os.Args[2], os.Args[3], os.Args[5]
	size, err := strconv.Atoi(os.Args[4])
	check(err)
	seconds, err := strconv.ParseFloat(os.Args[6], 64)
	check(err)
	if os.Args[1] == "write" {
		write(transport, where, size, api, time.Now().Add(time.Duration(seconds*float64(time.Second))))
		return
	}
	m := &meter{size: size, warmup: time.Duration(seconds * float64(time.Second))}
	read(transport, where, m, api)
	if transport == "pipe.fifo" || transport == "socket.unix" {
		os.Remove(where)
	}
	m.report()
}
