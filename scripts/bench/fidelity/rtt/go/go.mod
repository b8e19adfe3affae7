module rtt

go 1.19
