// S2's shape, a Go reader of 32-byte records on a FIFO, written the way Go's documentation shows
// reading a stream of fixed-size records: os.OpenFile on the FIFO, then io.ReadFull of each
// record, through bufio.NewReader (pkg.go.dev/bufio, pkg.go.dev/io#ReadFull) or on the *os.File
// itself; the writer writes one record per (*os.File).Write. Shares no code with kits/go.
//
//	fiforeader read PATH COUNT SIZE bufio|file   creates the FIFO at PATH, reads COUNT records
//	fiforeader write PATH COUNT SIZE             writes COUNT records of SIZE bytes
//
// The reader prints "mb_per_sec=... msgs_per_sec=... seconds=..." from its first record to its
// last.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: fiforeader read PATH COUNT SIZE bufio|file | write PATH COUNT SIZE")
		os.Exit(2)
	}
	path := os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	size, _ := strconv.Atoi(os.Args[4])
	record := make([]byte, size)
	if os.Args[1] == "write" {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; i < count; i++ {
			if _, err := f.Write(record); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		f.Close()
		return
	}
	if err := syscall.Mkfifo(path, 0600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var r io.Reader = f
	if len(os.Args) > 5 && os.Args[5] == "bufio" {
		r = bufio.NewReader(f)
	}
	var start time.Time
	for i := 0; i < count; i++ {
		if _, err := io.ReadFull(r, record); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if i == 0 {
			start = time.Now()
		}
	}
	s := time.Since(start).Seconds()
	// count-1 intervals between the first record and the last
	fmt.Printf("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f\n", float64((count-1)*size)/s/1e6, float64(count-1)/s, s)
	os.Remove(path)
}
