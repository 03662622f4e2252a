package editapply

import "testing"

// Content written twice (twice.go): what the verifier refuses and what it
// leaves to the code. Each edit is judged on the file the answer leaves.
func TestVerifyWrittenTwice(t *testing.T) {
	py := "class ReaderTest:\n    def setUp(self):\n        self.reader = Reader(strict=True)\n\n    def test_read(self):\n        assert self.reader.read(\"a\") == \"a\"\n"
	for _, c := range []struct {
		name  string
		files mapFiles
		edit  Edit
		want  string // "" applies
	}{
		{
			// Two classes each with its own setUp: two scopes.
			name:  "same method in another class",
			files: mapFiles{"t.py": py},
			edit:  Edit{Kind: KindEdit, Path: "t.py", OldText: "        assert self.reader.read(\"a\") == \"a\"\n", NewText: "        assert self.reader.read(\"a\") == \"a\"\n\n\nclass WriterTest:\n    def setUp(self):\n        self.writer = Writer(strict=True)\n"},
		},
		{
			name:  "same method again in its class",
			files: mapFiles{"t.py": py},
			edit:  Edit{Kind: KindEdit, Path: "t.py", OldText: "    def test_read(self):\n", NewText: "    def setUp(self):\n        self.reader = Reader(strict=False)\n\n    def test_read(self):\n"},
			want:  "method setUp written twice",
		},
		{
			// The Go specification lets a file have several init functions.
			name:  "a second Go init",
			files: mapFiles{"r.go": "package r\n\nfunc init() {\n\tregister(\"a\")\n}\n"},
			edit:  Edit{Kind: KindEdit, Path: "r.go", OldText: "\tregister(\"a\")\n}\n", NewText: "\tregister(\"a\")\n}\n\nfunc init() {\n\tregister(\"b\")\n}\n"},
		},
		{
			// Overloads differ in their parameters, even on later lines.
			name:  "an overload with its parameters on the next line",
			files: mapFiles{"A.java": "class A {\n    int sum(\n            int a, int b) {\n        return a + b;\n    }\n}\n"},
			edit:  Edit{Kind: KindEdit, Path: "A.java", OldText: "        return a + b;\n    }\n", NewText: "        return a + b;\n    }\n\n    int sum(\n            int a, int b, int c) {\n        return a + b + c;\n    }\n"},
		},
		{
			// A YAML list whose new item repeats the one before it at once.
			name:  "a stutter in a file without definitions",
			files: mapFiles{"ci.yaml": "steps:\n  - name: build the release binaries\n    run: make build GOFLAGS=-trimpath\n    timeout-minutes: 10\n"},
			edit:  Edit{Kind: KindEdit, Path: "ci.yaml", OldText: "    timeout-minutes: 10\n", NewText: "    timeout-minutes: 10\n  - name: build the release binaries\n    run: make build GOFLAGS=-trimpath\n    timeout-minutes: 10\n"},
			want:  "written twice in a row",
		},
		{
			// The same statements inside a branch and after it, dedented:
			// two places of the code, not a stutter.
			name:  "the same lines at another indentation",
			files: mapFiles{"s.py": "def sync(db, force):\n    if force:\n        db.flush_pending_writes()\n        db.rebuild_search_index()\n        db.close_idle_connections()\n"},
			edit:  Edit{Kind: KindEdit, Path: "s.py", OldText: "        db.close_idle_connections()\n", NewText: "        db.close_idle_connections()\n    db.flush_pending_writes()\n    db.rebuild_search_index()\n    db.close_idle_connections()\n"},
		},
		{
			// The file already holds the block twice in a row; an edit
			// beside it writes neither copy.
			name:  "a repetition the file had",
			files: mapFiles{"n.txt": "retry the request once more\nwait for the server to answer\nretry the request once more\nwait for the server to answer\nend\n"},
			edit:  Edit{Kind: KindEdit, Path: "n.txt", OldText: "end\n", NewText: "done\n"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := verifyOne(t, c.files, "", c.edit)
			if c.want != "" {
				refused(t, res, c.want)
				return
			}
			if len(res.Failures) != 0 {
				t.Errorf("refused: %+v", res.Failures)
			}
		})
	}
}
