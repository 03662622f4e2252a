// record.js runs one of a peer's own TypeScript test files with the peer's
// edit implementation replaced by a recorder, and prints one JSON line per
// call the test makes: the file the test starts from, the answer it gives
// (the peer's diff text), and what the test asserts about the result (the
// exact content, success or failure, text the result must or must not
// contain). tests/editcorpus's TestPeerSuites then gives each line to
// aide-lsp and compares. Nothing of the peer is kept: its test file is read
// from the checkout, transpiled in memory and run once.
//
// usage: node record.js KIND SUITE TESTFILE
//   KIND: cline-diff, roo-msr, cline-patch, cline-editor, roo-patch, roo-tool
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");

const [kind, suite, testFile] = process.argv.slice(2);
if (!kind || !suite || !testFile) {
	console.error("usage: node record.js KIND SUITE TESTFILE");
	process.exit(2);
}
let esbuild;
try {
	esbuild = require(process.env.ESBUILD_MODULE || "esbuild");
} catch (e) {
	console.error("record.js needs esbuild (tests/peers/run.sh installs it): " + e.message);
	process.exit(2);
}

// ---- what the tests call and assert ----
const calls = []; // {suite, test, file, original, answer, opts, expect: []}
let current = ""; // the running test's name

const TAG = Symbol("tag");
function tag(call, field) {
	return { [TAG]: true, call, field, toString: () => "", split: () => [], includes: () => false };
}
function record(t, how, value) {
	if (t && typeof t.then === "function" && !t[TAG]) {
		t.then((v) => record(v, how, value), () => {});
		return;
	}
	// A comparison of two results (the peer's two implementations) says
	// nothing about the file.
	if (t && t[TAG] && !(value && value[TAG])) t.call.expect.push({ field: t.field, how, value });
}

function newCall(original, answer, opts) {
	// The same input given again (a second implementation of the peer, or a
	// second assertion) is one case.
	for (const c of calls) {
		if (c.test === current && c.original === original && c.answer === answer && JSON.stringify(c.opts) === JSON.stringify(opts)) return c;
	}
	const c = { suite, test: current, original, answer, opts, expect: [] };
	calls.push(c);
	return c;
}
let lastCall = null;

// expect.fail() right after a call: the test wanted that call to throw.
class FailMarker extends Error {}
function failHere() {
	if (lastCall) lastCall.expect.push({ field: "success", how: "be", value: false });
	throw new FailMarker("expected a throw");
}

// A chai/vitest-shaped expect whose every chain ends in a recorder.
function expectFn(actual) {
	const state = { not: false };
	const end = (how) => (value) => {
		record(actual, state.not ? "not-" + how : how, value);
		return chain;
	};
	const handler = {
		get(_, prop) {
			switch (prop) {
				case "not":
					state.not = !state.not;
					return chain;
				case "equal":
				case "eq":
				case "equals":
				case "eql":
				case "toBe":
				case "toEqual":
				case "toStrictEqual":
					return end("be");
				case "include":
				case "contain":
				case "includes":
				case "contains":
				case "toContain":
					return end("contain");
				case "resolves":
					return chain;
				case "rejects":
					state.rejects = true;
					return chain;
				case "toThrow":
				case "toThrowError":
				case "throw":
					if (!toolKinds.has(kind)) return chainFn;
					return () => {
						expectThrow(actual, state);
						return chain;
					};
				case "toHaveBeenCalled":
				case "toHaveBeenCalledWith":
					if (!toolKinds.has(kind)) return chainFn;
					return (...args) => {
						if (!state.not) mockAsserted(actual, prop, args);
						return chain;
					};
				case "then":
					return undefined;
				default:
					return typeof prop === "string" ? chainFn : undefined;
			}
		},
	};
	const chainFn = new Proxy(function () {
		return chain;
	}, handler);
	const chain = new Proxy({}, handler);
	return chain;
}
expectFn.fail = failHere;
for (const m of ["any", "anything", "stringContaining", "objectContaining", "arrayContaining", "stringMatching"]) expectFn[m] = () => ({});

// The kinds whose tests call a tool or a function that throws: their
// toThrow and mock-call assertions are followed (the older kinds keep the
// behaviour their figures were taken with).
const toolKinds = new Set(["cline-editor", "roo-patch", "roo-tool"]);

// expect(() => f()).toThrow() / expect(promise).rejects.toThrow(): the
// call the function makes is expected to fail.
function expectThrow(actual, state) {
	const fail = (c) => c && !state.not && c.expect.push({ field: "success", how: "be", value: false });
	if (typeof actual === "function" && !actual.mock) {
		lastCall = null;
		try {
			actual();
		} catch {}
		fail(lastCall);
	} else if (actual && typeof actual.then === "function") {
		actual.then((v) => fail(v && v[TAG] ? v.call : lastCall), () => fail(lastCall));
	}
}

// Roo's tool tests say what happens to the file through the mocks the
// tool is handed: approval asked (the edit goes ahead) and the diff view
// updated with the new content.
const roo = { approval: null, update: null, save: null, path: "" };
function mockAsserted(fn, how, args) {
	if (!lastCall) return;
	if ((fn === roo.approval || fn === roo.save) && how === "toHaveBeenCalled") lastCall.expect.push({ field: "success", how: "be", value: true });
	if (fn === roo.update && how === "toHaveBeenCalledWith" && typeof args[0] === "string")
		lastCall.expect.push({ field: "file:" + roo.path, how: "be", value: args[0] });
}

// ---- the peer implementations, replaced ----
const stubs = {
	"cline-diff": {
		constructNewFileContent(diff, original, isFinal, version) {
			const c = newCall(original, diff, { isFinal: isFinal !== false });
			lastCall = c;
			return Promise.resolve({ newContent: tag(c, "content") });
		},
	},
	"roo-msr": {
		MultiSearchReplaceDiffStrategy: class {
			constructor(fuzzy, buffer) {
				this.opts = { fuzzy: fuzzy ?? 1.0 };
			}
			validateMarkerSequencing() {
				return { success: true };
			}
			applyDiff(original, diff, startLine, endLine) {
				const opts = { ...this.opts };
				if (startLine !== undefined) opts.startLine = startLine;
				if (endLine !== undefined) opts.endLine = endLine;
				const c = newCall(original, diff, opts);
				lastCall = c;
				return Promise.resolve({ success: tag(c, "success"), content: tag(c, "content"), error: tag(c, "error"), failParts: [] });
			}
			getName() {
				return "MultiSearchReplace";
			}
			getToolDescription() {
				return "";
			}
		},
	},
};

// cline-patch: the SDK's executor works on a real folder; the recorder
// snapshots the folder when the patch is given and the test's assertions
// on files read afterwards are recorded against that call.
const patchState = { dirFiles: null };
stubs["cline-patch"] = {
	createApplyPatchExecutor() {
		return async (args, dir) => {
			const files = {};
			for (const f of walk(dir)) files[path.relative(dir, f).split(path.sep).join("/")] = fs.readFileSync(f, "utf8");
			const c = newCall(JSON.stringify(files), args.input, { dir: true });
			c.files = files;
			lastCall = c;
			patchState.dir = dir;
			return tag(c, "message");
		};
	},
};
function walk(d) {
	const out = [];
	for (const e of fs.readdirSync(d, { withFileTypes: true })) {
		const p = path.join(d, e.name);
		if (e.isDirectory()) out.push(...walk(p));
		else out.push(p);
	}
	return out;
}

// fs/promises.readFile of a file in the patch folder after the call gives
// a tag: the test's assertion on it is about that file.
const realFsp = require("node:fs/promises");
const fsp = new Proxy(realFsp, {
	get(t, prop) {
		if (prop === "readFile") {
			return async (p, enc) => {
				if (lastCall && lastCall.files && patchState.dir && String(p).startsWith(patchState.dir)) {
					const rel = path.relative(patchState.dir, String(p)).split(path.sep).join("/");
					return tag(lastCall, "file:" + rel);
				}
				return realFsp.readFile(p, enc);
			};
		}
		if (prop === "access" || prop === "stat") {
			return async (p, ...rest) => {
				if (lastCall && lastCall.files && patchState.dir && String(p).startsWith(patchState.dir)) {
					const rel = path.relative(patchState.dir, String(p)).split(path.sep).join("/");
					lastCall.expect.push({ field: "file:" + rel, how: "exists", value: true });
					return {};
				}
				return realFsp[prop](p, ...rest);
			};
		}
		return t[prop];
	},
});


// cline-editor: the SDK's editor executor ({path, old_text, new_text,
// insert_line}) on a real folder, snapshotted as for cline-patch. The
// call is given as our editor's tool of the same meaning: edit_file
// {path, old_text, new_text}; with no old_text, Cline creates the file,
// which is write_file {path, content}. insert_line (insert before a line
// number) has no tool of ours: edit_file finds its place by text.
stubs["cline-editor"] = {
	createEditorExecutor() {
		return async (args, dir) => {
			const files = {};
			for (const f of walk(dir)) files[path.relative(dir, f).split(path.sep).join("/")] = fs.readFileSync(f, "utf8");
			const rel = path.relative(dir, String(args.path)).split(path.sep).join("/");
			let call;
			const opts = { dir: true };
			if (args.insert_line !== undefined) opts.na = "an insertion at a line number (insert_line): our editor's tools place text by the text around it, not by a line number";
			else if (args.old_text === undefined) call = { name: "write_file", arguments: { path: rel, content: args.new_text } };
			else call = { name: "edit_file", arguments: { path: rel, old_text: args.old_text, new_text: args.new_text } };
			const c = newCall(JSON.stringify(files) + JSON.stringify(args), "", opts);
			c.files = files;
			c.calls = call ? [call] : [];
			lastCall = c;
			patchState.dir = dir;
			return tag(c, "message");
		};
	},
};

// roo-patch: Roo's applyChunksToContent(original, path, chunks) applies
// parsed apply_patch chunks ({changeContext, oldLines, newLines,
// isEndOfFile}) to a file's text. The chunks are written back as the
// apply_patch text they are parsed from (an "@@ context" header, the
// lines both sides share as " " lines, the others as "-" and "+", and
// "*** End of File"), and the file is named as the test names it.
function patchLines(oldL, newL) {
	const n = oldL.length, m = newL.length;
	const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
	for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = oldL[i] === newL[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
	const out = [];
	let i = 0, j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && oldL[i] === newL[j]) out.push(" " + oldL[i++]), j++;
		else if (i < n && (j >= m || L[i + 1][j] >= L[i][j + 1])) out.push("-" + oldL[i++]);
		else out.push("+" + newL[j++]);
	}
	return out;
}
stubs["roo-patch"] = {
	applyChunksToContent(original, filePath, chunks) {
		const lines = ["*** Begin Patch", "*** Update File: " + filePath];
		for (const ch of chunks) {
			lines.push(ch.changeContext === null || ch.changeContext === undefined ? "@@" : "@@ " + ch.changeContext);
			lines.push(...patchLines(ch.oldLines, ch.newLines));
			if (ch.isEndOfFile) lines.push("*** End of File");
		}
		lines.push("*** End Patch");
		const c = newCall(original, lines.join("\n") + "\n", { dir: true });
		c.files = { [filePath]: original };
		lastCall = c;
		return tag(c, "file:" + filePath);
	},
	ApplyPatchError: class extends Error {},
};

// roo-tool: Roo's search_replace and edit_file tools, handle(task,
// toolUse, callbacks), with the file's existence and text taken from the
// mocks the test sets (fileExistsAtPath, fs.readFile). The arguments are
// given as our edit_file's of the same meaning: file_path -> path,
// old_string -> old_text, new_string -> new_text (an argument the model
// left out stays out), and expected_replacements N > 1 (replace all N
// occurrences) -> replace_all: true. What the test asserts on the tool's
// result is an error message (success false) or, for "No changes
// needed", the file as it was. A call stopped before the edit by
// plumbing (no path, .rooignore, a read error, the diff view failing, the
// user rejecting) is not applicable, with its reason; a missing old or
// new text is a call on the file, and counted.
const automocks = {};
function rooTool(name) {
	return {
		async handle(task, toolUse, cb) {
			if (toolUse.partial) return; // a streaming preview, not the answer
			const a = { ...(toolUse.params || {}), ...(toolUse.nativeArgs || {}) };
			const file = a.file_path;
			const args = {};
			if (file !== undefined) args.path = file;
			if (a.old_string !== undefined) args.old_text = a.old_string;
			if (a.new_string !== undefined) args.new_text = a.new_string;
			const n = Number(a.expected_replacements);
			if (n > 1) args.replace_all = true;
			let na = "";
			if (file === undefined) na = "a missing path: the tool's own message, no file";
			else if (task.rooIgnoreController && task.rooIgnoreController.validateAccess(file) === false) na = "the file is denied by .rooignore: a setting, no edit";
			const files = {};
			if (!na) {
				const exists = await automocks["../../../utils/fs"].fileExistsAtPath(file);
				if (exists) {
					try {
						files[file] = await automocks["fs/promises"].readFile(file, "utf-8");
					} catch {
						na = "the file cannot be read: an I/O error, no edit";
					}
				}
			}
			const c = newCall(JSON.stringify(files) + JSON.stringify(args) + na, "", { dir: true, ...(na ? { na } : {}) });
			c.files = files;
			c.calls = [{ name: "edit_file", arguments: args }];
			lastCall = c;
			roo.approval = cb.askApproval;
			roo.update = task.diffViewProvider && task.diffViewProvider.update;
			roo.save = task.diffViewProvider && task.diffViewProvider.saveChanges;
			roo.path = file;
			if (!na) {
				try {
					await task.diffViewProvider.open(file);
				} catch {
					c.opts.na = "the diff view fails to open: the editor, no edit";
				}
			}
			if (!c.opts.na && (await cb.askApproval("tool", "")) === false) c.opts.na = "the user rejects the edit: approval, not the edit";
			cb.pushToolResult(tag(c, "result"));
		},
	};
}
stubs["roo-tool"] = { searchReplaceTool: rooTool("search_replace"), editFileTool: rooTool("edit_file") };

// A working vi (fn, its mock* setters, clearAllMocks) for the roo-tool
// tests, which set the file through mocks; vi.mock is a no-op, the
// modules being replaced by require below.
const allMocks = [];
function mockFn(impl) {
	let base = impl;
	let once = [];
	const f = function (...args) {
		f.mock.calls.push(args);
		const next = once.length ? once.shift() : base;
		return next ? next.apply(this, args) : undefined;
	};
	f.mock = { calls: [] };
	const set = (k, mk) => (f[k] = (v) => ((base = mk(v)), f));
	const setOnce = (k, mk) => (f[k] = (v) => (once.push(mk(v)), f));
	set("mockReturnValue", (v) => () => v);
	set("mockResolvedValue", (v) => () => Promise.resolve(v));
	set("mockRejectedValue", (v) => () => Promise.reject(v));
	set("mockImplementation", (v) => v);
	setOnce("mockReturnValueOnce", (v) => () => v);
	setOnce("mockResolvedValueOnce", (v) => () => Promise.resolve(v));
	setOnce("mockRejectedValueOnce", (v) => () => Promise.reject(v));
	setOnce("mockImplementationOnce", (v) => v);
	f.mockClear = () => ((f.mock.calls = []), f);
	f.mockReset = () => ((f.mock.calls = []), (once = []), (base = undefined), f);
	allMocks.push(f);
	return f;
}
const realVi = new Proxy(
	{
		fn: mockFn,
		mock() {},
		clearAllMocks: () => allMocks.forEach((m) => m.mockClear()),
		resetAllMocks: () => allMocks.forEach((m) => m.mockReset()),
		restoreAllMocks() {},
		importActual: async (s) => require(s),
		spyOn(o, k) {
			const f = mockFn(o[k]);
			o[k] = f;
			return f;
		},
	},
	{ get: (t, p) => (p in t ? t[p] : () => ({})) },
);
function automock(spec) {
	if (automocks[spec]) return automocks[spec];
	let m;
	if (spec === "path") m = { ...require("path"), resolve: mockFn(), isAbsolute: mockFn(), relative: mockFn() };
	else if (spec === "fs/promises") m = { readFile: mockFn(), writeFile: mockFn(), access: mockFn(), stat: mockFn(), mkdir: mockFn() };
	else {
		const fns = {};
		m = new Proxy(fns, { get: (t, p) => (p in stubs[kind] ? stubs[kind][p] : typeof p === "string" ? (t[p] ||= mockFn()) : undefined) });
	}
	automocks[spec] = m;
	return m;
}

// ---- run the test file ----
const tests = [];
const hooks = { before: [], after: [] };
function describe(name, fn) {
	const saved = [hooks.before.length, hooks.after.length];
	fn();
	void saved;
}
describe.skip = () => {};
describe.each = () => () => {};
function it(name, fn) {
	tests.push({ name, fn, before: hooks.before.slice(), after: hooks.after.slice() });
}
it.skip = () => {};
it.only = it;
it.each = () => () => {};
const beforeEach = (fn) => hooks.before.push(fn);
const afterEach = (fn) => hooks.after.push(fn);
const vi = kind === "roo-tool" ? realVi : new Proxy({}, { get: () => () => ({}) });

const src = fs.readFileSync(testFile, "utf8");
const js = esbuild.transformSync(src, { loader: "ts", format: "cjs", target: "node20" }).code;
const mod = { exports: {} };
function req(spec) {
	if (spec === "chai") return { expect: expectFn };
	if (spec === "mocha") return { describe, it, beforeEach, afterEach };
	if (spec === "vitest") return { describe, it, expect: expectFn, beforeEach, afterEach, vi, test: it };
	if (kind === "roo-tool" && !spec.startsWith("node:")) return automock(spec);
	if (spec === "node:fs/promises" || spec === "fs/promises") return fsp;
	if (spec.startsWith("node:") || ["fs", "path", "os"].includes(spec)) return require(spec);
	const stub = stubs[kind];
	return new Proxy(stub, { get: (t, p) => (p in t ? t[p] : undefined) });
}
const globalsForTest = { describe, it, test: it, expect: expectFn, beforeEach, afterEach, vi };
new Function("require", "module", "exports", ...Object.keys(globalsForTest), js)(req, mod, mod.exports, ...Object.values(globalsForTest));

(async () => {
	for (const t of tests) {
		current = t.name;
		lastCall = null;
		try {
			for (const b of t.before) await b();
			await t.fn();
		} catch (e) {
			if (!(e instanceof FailMarker)) {
				// An assertion the recorder cannot follow: what was recorded stays.
			}
		} finally {
			for (const a of t.after) {
				try {
					await a();
				} catch {}
			}
		}
	}
	for (const c of calls) {
		const files = c.files || null;
		const { na, ...opts } = c.opts;
		const line = { suite: c.suite, test: c.test, opts, answer: c.answer, expect: c.expect };
		if (na) line.notApplicable = na;
		if (c.calls) line.calls = c.calls.map((k) => ({ name: k.name, arguments: JSON.stringify(k.arguments) }));
		if (kind === "roo-tool") line.expect = c.expect.map((e) => rooResult(e, c));
		if (files) line.files = files;
		else line.original = c.original;
		process.stdout.write(JSON.stringify(line) + "\n");
	}
})();
void os;

// What a Roo tool test asserts on the tool's result: an error message
// (the call fails), or "No changes needed" (the file stays as it was).
function rooResult(e, c) {
	if (e.field !== "result") return e;
	if (String(e.value).includes("No changes needed")) return { field: "file:" + Object.keys(c.files)[0], how: "be", value: Object.values(c.files)[0] };
	return { field: "success", how: "be", value: false };
}
