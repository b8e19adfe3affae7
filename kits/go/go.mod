module ipcbench/kits/go

go 1.19
