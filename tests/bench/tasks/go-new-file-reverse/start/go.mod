module example.com/textcmd

go 1.22
