module example.com/pages

go 1.22
