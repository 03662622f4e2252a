package commands

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestContractTable: contract §4's table of commands is the command
// table: the same commands in the same order, each argument and result
// written as the structs are.
func TestContractTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	at := strings.Index(text, "| command | argument | result |")
	if at < 0 {
		t.Fatal("contract §4 has no command table")
	}
	var rows [][]string
	for _, line := range strings.Split(text[at:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("row %q", line)
		}
		rows = append(rows, []string{strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2]), strings.TrimSpace(strings.Join(cells[3:], "|"))})
	}
	if len(rows) != len(Table) {
		t.Fatalf("contract §4 lists %d commands, the table %d", len(rows), len(Table))
	}
	for i, c := range Table {
		r := rows[i]
		if r[0] != "`"+c.Name+"`" {
			t.Errorf("row %d is %s, want `%s`", i+1, r[0], c.Name)
			continue
		}
		if want := "`" + c.ArgShape() + "`"; r[1] != want {
			t.Errorf("%s: contract argument %s, the struct is %s", c.Name, r[1], want)
		}
		if want := "`" + resultShape(c) + "`"; !strings.HasPrefix(r[2], want) {
			t.Errorf("%s: contract result %s, the struct is %s", c.Name, r[2], want)
		}
	}
}

// resultShape is a command's result as contract §4 writes it.
func resultShape(c Command) string { return shape(reflect.TypeOf(c.Result), true) }
