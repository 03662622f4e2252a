// Renders Markdown documents with markdown-it configured as VS Code's
// Markdown preview configures it (html: true, linkify: true), for
// planview's test that no defanged model text renders a fetch
// (planview/markdownit_test.go). Reads a JSON array of strings on stdin,
// writes the JSON array of their HTML on stdout.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true, linkify: true });
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const docs = JSON.parse(input);
  process.stdout.write(JSON.stringify(docs.map((d) => md.render(d))));
});
