module ipcbench/fidelity

go 1.19
