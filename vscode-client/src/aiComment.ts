// AI-comment detection (contract §4): a comment whose text starts with `AI:`
// gives the task, together with the comment lines that follow it. The
// extension uses it only to decide whether to ask for a task: on an AI
// comment the server takes the task from the comment itself, so the palette
// commands must not prompt. Pure: no vscode import, tested under node.

/** Comment openers we recognise, longest first so `///` wins over `//`. */
const COMMENT_OPENERS = ['<!--', '///', '//!', '//', '/*', '--', '#', ';;', ';', '%', '*', "'", 'REM '];

/** The text of a comment line without its opener, or undefined when the line is not a comment. */
export function commentText(line: string): string | undefined {
  const trimmed = line.trimStart();
  for (const opener of COMMENT_OPENERS) {
    if (trimmed.startsWith(opener)) {
      let text = trimmed.slice(opener.length);
      // Closers of block comments on the same line.
      text = text.replace(/\s*(\*\/|-->)\s*$/, '');
      return text.trim();
    }
  }
  return undefined;
}

/** True when the comment text opens an AI comment (`AI:` then the task). */
function isAIStart(text: string): boolean {
  return /^AI:/.test(text);
}

export interface AIComment {
  /** Zero-based line of the `AI:` line. */
  line: number;
  /** Zero-based last line of the comment (the task continues on comment lines). */
  endLine: number;
  /** The task text: the `AI:` line's text after `AI:` plus the following comment lines. */
  task: string;
}

/**
 * The AI comment at `cursorLine`: the cursor is on its `AI:` line or on one of
 * the comment lines that continue it. Undefined when the cursor is elsewhere.
 */
export function findAIComment(lines: readonly string[], cursorLine: number): AIComment | undefined {
  if (cursorLine < 0 || cursorLine >= lines.length) return undefined;
  // Walk up through contiguous comment lines to find the AI: opener.
  let start = -1;
  for (let i = cursorLine; i >= 0; i--) {
    const text = commentText(lines[i]);
    if (text === undefined) break;
    if (isAIStart(text)) {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const first = commentText(lines[start])!.slice('AI:'.length).trim();
  const parts = first ? [first] : [];
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    const text = commentText(lines[i]);
    if (text === undefined || isAIStart(text)) break;
    end = i;
    if (text) parts.push(text);
  }
  if (cursorLine > end) return undefined;
  const task = parts.join(' ').trim();
  if (!task) return undefined;
  return { line: start, endLine: end, task };
}
