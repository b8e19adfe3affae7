module plainloop

go 1.19
