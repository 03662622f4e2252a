// record.js runs one of a peer's own TypeScript test files with the peer's
// edit implementation replaced by a recorder, and prints one JSON line per
// call the test makes: the file the test starts from, the answer it gives
// (the peer's diff text), and what the test asserts about the result (the
// exact content, success or failure, text the result must or must not
// contain). tests/editcorpus's TestPeerSuites then gives each line to
// aide-lsp and compares. Nothing of the peer is kept: its test file is read
// from the checkout, transpiled in memory and run once.
//
// usage: node record.js KIND SUITE TESTFILE   (KIND: cline-diff, roo-msr, cline-patch)
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
				case "rejects":
					return chain;
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
const vi = new Proxy({}, { get: () => () => ({}) });

const src = fs.readFileSync(testFile, "utf8");
const js = esbuild.transformSync(src, { loader: "ts", format: "cjs", target: "node20" }).code;
const mod = { exports: {} };
function req(spec) {
	if (spec === "chai") return { expect: expectFn };
	if (spec === "mocha") return { describe, it, beforeEach, afterEach };
	if (spec === "vitest") return { describe, it, expect: expectFn, beforeEach, afterEach, vi, test: it };
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
		const line = { suite: c.suite, test: c.test, opts: c.opts, answer: c.answer, expect: c.expect };
		if (files) line.files = files;
		else line.original = c.original;
		process.stdout.write(JSON.stringify(line) + "\n");
	}
})();
void os;
