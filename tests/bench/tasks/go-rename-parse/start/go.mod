module example.com/config

go 1.22
