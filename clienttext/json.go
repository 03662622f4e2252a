package clienttext

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// Classify says the kind of the string at path in a message: path is the
// object names from the message's top down, "*" for an array's element
// (["params", "diagnostics", "*", "message"]).
type Classify func(path []string) Kind

// JSON applies the border to every string value of one encoded JSON
// message, each by the kind classify gives its place; names, numbers and
// the message's shape are left as they are. Exact strings are copied as
// encoded.
func JSON(msg []byte, classify Classify) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(msg), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out bytes.Buffer
	out.Grow(len(msg) + len(msg)/16)
	enc := jsontext.NewEncoder(&out, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type frame struct {
		object   bool
		wantName bool
	}
	var stack []frame
	var path []string
	// valueDone ends a value inside its container: an object's next token
	// is a name again, and the value's name leaves the path.
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantName = true
			path = path[:len(path)-1]
		}
	}
	for {
		k := dec.PeekKind()
		if k == 0 {
			if _, err := dec.ReadToken(); err != nil && dec.StackDepth() == 0 && len(stack) == 0 {
				break // io.EOF after the value
			} else if err != nil {
				return nil, err
			}
		}
		switch k {
		case '{', '[':
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			if err := enc.WriteToken(tok); err != nil {
				return nil, err
			}
			if n := len(stack); n > 0 && !stack[n-1].object {
				path = append(path, "*")
			}
			stack = append(stack, frame{object: k == '{', wantName: k == '{'})
		case '}', ']':
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			if err := enc.WriteToken(tok); err != nil {
				return nil, err
			}
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && !stack[n-1].object {
				path = path[:len(path)-1]
			}
			valueDone()
		case '"':
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			if n := len(stack); n > 0 && stack[n-1].wantName {
				name, err := jsontext.AppendUnquote(nil, raw)
				if err != nil {
					return nil, err
				}
				path = append(path, string(name))
				stack[n-1].wantName = false
				if err := enc.WriteValue(raw); err != nil {
					return nil, err
				}
				continue
			}
			if n := len(stack); n > 0 && !stack[n-1].object {
				path = append(path, "*")
			}
			if kind := classify(path); kind == Exact {
				err = enc.WriteValue(raw)
			} else {
				var s []byte
				if s, err = jsontext.AppendUnquote(nil, raw); err == nil {
					err = enc.WriteToken(jsontext.String(kind.Apply(string(s))))
				}
			}
			if err != nil {
				return nil, err
			}
			if n := len(stack); n > 0 && !stack[n-1].object {
				path = path[:len(path)-1]
			}
			valueDone()
		default:
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			if err := enc.WriteValue(raw); err != nil {
				return nil, err
			}
			valueDone()
		}
		if len(stack) == 0 {
			break
		}
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}
