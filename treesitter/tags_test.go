package treesitter

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLanguage(t *testing.T) {
	cases := []struct {
		path, head, want string
	}{
		{"main.go", "", "go"},
		{"a/b/x.PY", "", "python"},
		{"web/app.jsx", "", "javascript"},
		{"web/app.ts", "", "typescript"},
		{"web/app.tsx", "", "tsx"},
		{"src/lib.rs", "", "rust"},
		{"A.java", "", "java"},
		{"x.c", "", "c"},
		{"x.h", "", "c"},
		{"x.hpp", "", "cpp"},
		{"Rakefile", "", "ruby"},
		{"x.rb", "", "ruby"},
		{"run.sh", "", "bash"},
		{"bin/tool", "#!/usr/bin/env python3\nprint(1)\n", "python"},
		{"bin/tool", "#!/usr/bin/env -S node --harmony\n", "javascript"},
		{"bin/tool", "#!/bin/bash\n", "bash"},
		{"bin/tool", "#!/usr/bin/ruby3.2 -w\n", "ruby"},
		{"bin/tool", "#!/usr/bin/perl\n", ""},
		{"bin/tool", "no shebang", ""},
		{"README.md", "#!/bin/bash\n", ""}, // a known extension wins
		{"x.s", "", ""},
	}
	for _, c := range cases {
		if got := Language(c.path, []byte(c.head)); got != c.want {
			t.Errorf("Language(%q, %q) = %q, want %q", c.path, c.head, got, c.want)
		}
	}
}

// TestTagsPerLanguage checks, for each language, definitions (kind, name,
// line, signature) and references from a small fixture.
func TestTagsPerLanguage(t *testing.T) {
	cases := []struct {
		file string
		lang string
		defs []string // "kind name line signature"
		refs []string
	}{
		{"sample.go", "go", []string{
			"constant Pi 6 const Pi", // values are left out of the map (contract §8)
			"interface Shape 8 type Shape interface",
			"type Circle 12 type Circle struct",
			"method Area 16 func (c Circle) Area() float64",
			"function NewCircle 20 func NewCircle(r float64) *Circle",
		}, []string{"Pow", "Circle"}},
		{"sample.py", "python", []string{
			"constant MAX_SIZE 3 MAX_SIZE",
			"class Store 6 class Store(Base):",
			"method load 7 def load(self, path):",
			"method size 11 def size(self):",
			"function helper 15 def helper():",
		}, []string{"Base", "helper", "join", "Store"}},
		{"sample.js", "javascript", []string{
			"constant LIMIT 1 const LIMIT",
			"function greet 3 function greet(name)",
			"class Greeter 7 class Greeter extends Base",
			"method hello 8 hello()",
			"function shout 13 const shout = (s) => s.toUpperCase();",
		}, []string{"format", "greet", "Base"}},
		{"sample.ts", "typescript", []string{
			"interface Shape 1 export interface Shape",
			"type Id 5 export type Id = string;",
			"class Square 7 export class Square implements Shape",
			"method area 9 area(): number",
			"function compute 14 export function compute(n: number): number",
			"type Color 18 enum Color",
		}, []string{"compute", "Shape"}},
		{"sample.tsx", "tsx", []string{
			"interface Props 3 interface Props",
			"function Hello 7 export function Hello(props: Props)",
			"function Button 11 export const Button = () => <button onClick={handle}>ok</button>;",
		}, []string{"Props", "format"}},
		{"sample.rs", "rust", []string{
			"constant MAX 1 pub const MAX: usize",
			"interface Shape 3 pub trait Shape",
			"type Circle 7 pub struct Circle",
			"method area 12 fn area(&self) -> f64",
			"function square 17 fn square(x: f64) -> f64",
		}, []string{"square", "Shape", "Circle"}},
		{"Sample.java", "java", []string{
			"interface Shape 3 public interface Shape",
			"class Circle 7 public class Circle implements Shape",
			"method Circle 10 public Circle(double r)",
			"method area 15 public double area()",
		}, []string{"pow", "Shape"}},
		{"sample.c", "c", []string{
			"constant LIMIT 3 #define LIMIT 10",
			"type point 5 struct point",
			"type point_t 9 typedef struct point point_t;",
			"function add 11 static int add(int a, int b)",
			"function main 15 int main(void)",
		}, []string{"add", "printf"}},
		{"sample.cpp", "cpp", []string{
			"module geo 3 namespace geo",
			"class Shape 5 class Shape",
			"class Circle 10 class Circle : public Shape",
			"method area 12 double area() const override",
			"function compute 17 double compute(double r)",
		}, []string{"compute", "Shape"}},
		{"sample.rb", "ruby", []string{
			"module Shapes 1 module Shapes",
			"constant LIMIT 2 LIMIT",
			"class Circle 4 class Circle < Base",
			"method area 9 def area",
			"method unit 13 def self.unit",
		}, []string{"compute", "Base"}},
		{"sample.sh", "bash", []string{
			"function greet 4 greet()",
			"function cleanup 8 function cleanup",
		}, []string{"greet", "rm"}},
		{"script", "python", []string{"function main 2 def main():"}, []string{"run"}},
	}
	seenLangs := map[string]bool{}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "tags", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := Language(c.file, src); got != c.lang {
				t.Fatalf("Language = %q, want %q", got, c.lang)
			}
			seenLangs[c.lang] = true
			tags, err := Tags(c.file, src)
			if err != nil {
				t.Fatal(err)
			}
			defs := map[string]bool{}
			refs := map[string]bool{}
			for _, tg := range tags {
				if tg.Path != c.file {
					t.Errorf("tag %q has path %q", tg.Name, tg.Path)
				}
				if tg.Def {
					defs[strings.Join([]string{tg.Kind, tg.Name, itoa(tg.Line), tg.Signature}, " ")] = true
				} else {
					refs[tg.Name] = true
					if tg.Line < 1 {
						t.Errorf("reference %q has line %d", tg.Name, tg.Line)
					}
				}
			}
			for _, d := range c.defs {
				if !defs[d] {
					t.Errorf("missing definition %q; have %v", d, keys(defs))
				}
			}
			for _, r := range c.refs {
				if !refs[r] {
					t.Errorf("missing reference %q; have %v", r, keys(refs))
				}
			}
		})
	}
	for _, l := range Languages {
		if !seenLangs[l] {
			t.Errorf("no fixture for %s", l)
		}
	}
}

func TestTagsUnsupported(t *testing.T) {
	if _, err := Tags("notes.md", []byte("# hi")); err == nil {
		t.Fatal("Tags on markdown: want an error")
	}
}

func TestSignatureBounded(t *testing.T) {
	long := "func F() { " + strings.Repeat("x := 1; ", 100) + "}"
	tags, err := Tags("a.go", []byte("package a\n"+long+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) == 0 || !tags[0].Def || len(tags[0].Signature) > maxSignature+len("…") {
		t.Fatalf("signature not bounded: %+v", tags)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A constant's or variable's value never reaches the map (contract §8): a
// token or DSN in the source is not sent to the model through it.
func TestSignatureLeavesOutLiteralValues(t *testing.T) {
	for in, want := range map[string]string{
		`const apiToken = "LITERAL-1"`:        "const apiToken",
		`var dsn = "postgres://u:p@h/db"`:     "var dsn",
		`API_KEY = "x" if a == b else "y"`:    "API_KEY",
		`const f = (a = 1) => a`:              "const f",
		`private static final String K = "v"`: "private static final String K",
		`x := y == z`:                         `x := y == z`,
		`const ok`:                            "const ok",
	} {
		if got := withoutValue(in); got != want {
			t.Errorf("withoutValue(%q) = %q, want %q", in, got, want)
		}
	}
}
