// S2's shape, a Go reader of 32-byte records on a FIFO, written the way Go's documentation shows
// reading a stream of fixed-size records: os.OpenFile on the FIFO, then io.ReadFull of each
// record, through bufio.NewReader (pkg.go.dev/bufio, pkg.go.dev/io#ReadFull) or on the *os.File
// itself; the writer writes one record per (*os.File).Write. Shares no code with kits/go.
//
//	fiforeader read PATH COUNT SIZE bufio|file [N]   creates N FIFOs (PATH, PATH.2 ... PATH.N),
//	                                                 reads COUNT records from each, a goroutine each
//	fiforeader write PATH COUNT SIZE [N]             writes COUNT records of SIZE bytes to each
//
// The reader prints "mb_per_sec=... msgs_per_sec=... seconds=..." over all FIFOs, from the first
// record to the last (S2 read 1, 2 and 3 FIFOs at once).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// fifos names the FIFOs of a pair: PATH alone, or PATH.2 ... PATH.N and then PATH (made last,
// so that PATH existing says they all do).
func fifos(path string, n int) []string {
	names := []string{}
	for i := 2; i <= n; i++ {
		names = append(names, fmt.Sprintf("%s.%d", path, i))
	}
	return append(names, path)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func write(path string, count int, record []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		fail(err)
	}
	for i := 0; i < count; i++ {
		if _, err := f.Write(record); err != nil {
			fail(err)
		}
	}
	f.Close()
}

// read reads count records from path and returns when its first and last arrived.
func read(path string, count, size int, buffered bool) (time.Time, time.Time) {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	var r io.Reader = f
	if buffered {
		r = bufio.NewReader(f)
	}
	record := make([]byte, size)
	var first time.Time
	for i := 0; i < count; i++ {
		if _, err := io.ReadFull(r, record); err != nil {
			fail(err)
		}
		if i == 0 {
			first = time.Now()
		}
	}
	return first, time.Now()
}

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: fiforeader read PATH COUNT SIZE bufio|file [N] | write PATH COUNT SIZE [N]")
		os.Exit(2)
	}
	path := os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	size, _ := strconv.Atoi(os.Args[4])
	n := 1
	if arg := map[string]int{"write": 5, "read": 6}[os.Args[1]]; len(os.Args) > arg {
		n, _ = strconv.Atoi(os.Args[arg])
	}
	names := fifos(path, n)
	var wg sync.WaitGroup
	if os.Args[1] == "write" {
		for _, name := range names {
			wg.Add(1)
			go func(name string) { defer wg.Done(); write(name, count, make([]byte, size)) }(name)
		}
		wg.Wait()
		return
	}
	for _, name := range names {
		if err := syscall.Mkfifo(name, 0600); err != nil {
			fail(err)
		}
	}
	buffered := len(os.Args) > 5 && os.Args[5] == "bufio"
	firsts, lasts := make([]time.Time, n), make([]time.Time, n)
	for i, name := range names {
		wg.Add(1)
		go func(i int, name string) { defer wg.Done(); firsts[i], lasts[i] = read(name, count, size, buffered) }(i, name)
	}
	wg.Wait()
	start, end := firsts[0], lasts[0]
	for i := range names {
		if firsts[i].Before(start) {
			start = firsts[i]
		}
		if lasts[i].After(end) {
			end = lasts[i]
		}
		os.Remove(names[i])
	}
	s := end.Sub(start).Seconds()
	// count-1 intervals between the first record and the last, on each FIFO
	records := n * (count - 1)
	fmt.Printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f\n", float64(records*size)/s/1e6, float64(records)/s, s)
}
