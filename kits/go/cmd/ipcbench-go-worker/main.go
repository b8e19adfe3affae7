// The Go kit's worker: ipchost starts it for a side run with --impl go
// (docs/worker-protocol.md).
package main

import (
	"os"

	"ipcbench/kits/go/ipcbench"
)

func main() { os.Exit(ipcbench.Main("go")) }
