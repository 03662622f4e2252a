package planview

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// The check the defanger's tests make of rendered HTML: every tag in it is
// one a Markdown renderer writes for Markdown itself (paragraphs, emphasis,
// code, links, lists, quotes, headings, tables), with no attribute that
// loads anything. Raw HTML (which the renderers pass through: html: true
// in markdown-it, WithUnsafe in goldmark) and images are never there.

// rendererTag is a tag a renderer writes for Markdown, and its attributes.
var rendererTag = regexp.MustCompile(`^<(/?)(p|a|em|strong|code|pre|h[1-6]|ul|ol|li|blockquote|hr|br|table|thead|tbody|tr|th|td|del|s)((?:\s+[a-z]+="[^"<>]*")*)\s*/?>`)

// loads is an attribute, or part of one, that makes a browser fetch.
var loads = regexp.MustCompile(`(?i)\s(src|srcset|background|poster|data|style|xlink:href|formaction|action|ping)=|url\(`)

// alignStyle is the one style renderers write (table cell alignment).
var alignStyle = regexp.MustCompile(`\sstyle="text-align:\s*(left|right|center)"`)

// fetchIn returns the first tag of rendered HTML that is not a renderer's
// own or that loads something, "" when there is none.
func fetchIn(out string) string {
	for i := strings.IndexByte(out, '<'); i >= 0; {
		m := rendererTag.FindStringSubmatch(out[i:])
		if m == nil {
			return clipTag(out[i:])
		}
		if loads.MatchString(alignStyle.ReplaceAllString(m[3], "")) {
			return m[0]
		}
		j := strings.IndexByte(out[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

func clipTag(s string) string {
	if i := strings.IndexByte(s, '>'); i >= 0 && i < 120 {
		return s[:i+1]
	}
	return s[:min(len(s), 120)]
}

// goldmarks render raw HTML as they find it, with and without GFM tables.
var goldmarks = []goldmark.Markdown{
	goldmark.New(goldmark.WithRendererOptions(html.WithUnsafe())),
	goldmark.New(goldmark.WithRendererOptions(html.WithUnsafe()), goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify)),
}

// goldmarkFetch is fetchIn of md rendered by each goldmark.
func goldmarkFetch(md string) string {
	for _, g := range goldmarks {
		var b bytes.Buffer
		if err := g.Convert([]byte(md), &b); err != nil {
			return "render error: " + err.Error()
		}
		if f := fetchIn(b.String()); f != "" {
			return f
		}
	}
	return ""
}
