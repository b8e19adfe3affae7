// A Go request–response pair on TCP, written the way the net package's documentation shows a
// client and a server: net.Listen and Accept, net.Dial, then conn.Write of each request and
// io.ReadFull of its reply of the same size (pkg.go.dev/net, pkg.go.dev/io#ReadFull). Go sets
// TCP_NODELAY on every TCP connection by default. Shares no code with kits/go.
//
//	rtt serve PORTFILE SIZE          listens on 127.0.0.1:0, writes the port, echoes until EOF
//	rtt ping PORT COUNT SIZE WARMUP  WARMUP seconds of untimed round trips, then COUNT timed
//
// The pinger prints "p50_ns=... p99_ns=... trips=...".
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"time"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rtt:", err)
	os.Exit(1)
}

func serve(portFile string, size int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := os.WriteFile(portFile, []byte(strconv.Itoa(port)), 0o600); err != nil {
		fail(err)
	}
	conn, err := ln.Accept()
	if err != nil {
		fail(err)
	}
	buf := make([]byte, size)
	for {
		if _, err := io.ReadFull(conn, buf); err != nil {
			return // the pinger closed
		}
		if _, err := conn.Write(buf); err != nil {
			fail(err)
		}
	}
}

func ping(port string, count, size int, warmup time.Duration) {
	conn, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		fail(err)
	}
	req, reply := make([]byte, size), make([]byte, size)
	trip := func() {
		if _, err := conn.Write(req); err != nil {
			fail(err)
		}
		if _, err := io.ReadFull(conn, reply); err != nil {
			fail(err)
		}
	}
	for end := time.Now().Add(warmup); time.Now().Before(end); {
		trip()
	}
	trips := make([]time.Duration, count)
	for i := range trips {
		start := time.Now()
		trip()
		trips[i] = time.Since(start)
	}
	conn.Close()
	sort.Slice(trips, func(a, b int) bool { return trips[a] < trips[b] })
	fmt.Printf("p50_ns=%d p99_ns=%d trips=%d\n", trips[count/2].Nanoseconds(), trips[count*99/100].Nanoseconds(), count)
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "serve" {
		size, _ := strconv.Atoi(os.Args[3])
		serve(os.Args[2], size)
		return
	}
	if len(os.Args) == 6 && os.Args[1] == "ping" {
		count, _ := strconv.Atoi(os.Args[3])
		size, _ := strconv.Atoi(os.Args[4])
		warm, _ := strconv.ParseFloat(os.Args[5], 64)
		ping(os.Args[2], count, size, time.Duration(warm*float64(time.Second)))
		return
	}
	fmt.Fprintln(os.Stderr, "usage: rtt serve PORTFILE SIZE | ping PORT COUNT SIZE WARMUP")
	os.Exit(2)
}
