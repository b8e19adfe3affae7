module records

go 1.19
