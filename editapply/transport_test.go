package editapply

import "testing"

// The transport stage's notices are notices, not code that names them.
func TestTransportNoticeNotCode(t *testing.T) {
	for _, l := range []string{"\tif (truncated) {", "\treturn process(truncated)", "\tlog.Print(\"rest of the queue\")", "\tx := s[:n] // keep the rest of it"} {
		if d := damageOf(Edit{Kind: KindEdit, NewText: l + "\n"}, "a.go", ""); d != nil {
			t.Errorf("%q taken for damage: %s", l, d.what)
		}
	}
	for _, l := range []string{"\tfoo() ... [truncated]", "[output truncated]", "(truncated)", "<rest of file unchanged>"} {
		if d := damageOf(Edit{Kind: KindEdit, NewText: l + "\n"}, "a.go", ""); d == nil {
			t.Errorf("%q not taken for a notice", l)
		}
	}
}
