// The 50-question check about this repository's own src/ (issue 33, item 5): recall@5 of /context and of
// a keyword-grep baseline on bench/data/src-questions.json, questions written in plain words before the
// code-retrieval model was trained (never edit them to tune a figure).
//
// /context: the checkout's `src/` is indexed into a temp data dir in-process through the checkout's own
// dist/ (`services.indexer.indexTree({root: <checkout>/src, name: 'src'})`, as `trawl index` does), then
// each question goes through `services.context.run({query, tokensNum: 2000})`; its `sources` are read in
// order. File hit: one of the first 5 snippets is in the answer's file. Symbol hit: one of them is in that
// file and its line range covers the symbol's definition line.
//
// Grep baseline: the question's words, lowercased, split on anything but letters and digits, without the
// project's stopwords (core/text/stopwords.ts) and words of 2 letters or fewer; one
// `rg -i -n -F -e w1 -e w2 … <checkout>/src`; each matching line counts the distinct question words it
// contains (case-insensitive substring). Files are ranked by distinct question words over the file, then
// matching lines, then path; the top 5 give the file-level hit. Symbol level: in each of those files the
// line with the most question words (first such line on a tie) hits when it lies in the symbol's span: from
// the first line of the doc comment right above its definition line (the definition line itself when none)
// to the line before the next top-level definition (a line starting with `export`/`function`/`class`/
// `const`/`let`/`interface`/`type`/`enum`), or 40 lines after the definition when none follows. (The doc
// comment is part of the span because it is where a symbol's plain words are; without it the best line
// is almost never inside a definition.)
//
// Definition line: the first line matching `(function|class|const|let|interface|type)\s+SYMBOL\b`, else
// `SYMBOL\s*[(:=]`. p50 ms: per question, after one warm-up question (grep: the rg call and ranking).
//
// Usage: npm run build && node bench/src-questions.mjs [--checkout DIR] [--baseline DIR] [--show-misses]
// --baseline DIR measures another built checkout's /context too (e.g. main before this work).
// Last line: `src_q_context_file_r5=… src_q_context_symbol_r5=… src_q_grep_file_r5=… src_q_grep_symbol_r5=…`
// (with --baseline, the baseline's context figures come first, suffixed `_before`).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT,
  benchOptions,
  fmt,
  headlineOf,
  machineLine,
  makeTmpDir,
  mdTable,
  removeTmpDir,
  summarize,
} from './lib.mjs';

const RG = '/usr/bin/rg';
const K = 5;
const QUESTIONS_FILE = path.join(ROOT, 'bench', 'data', 'src-questions.json');
const { args, checkout, baseline } = benchOptions();
const SHOW_MISSES = args.includes('--show-misses');
/** The code model of the measured build (`--code-model FILE`; default the shipped one). */
const CODE_MODEL = args.includes('--code-model') ? args[args.indexOf('--code-model') + 1] : undefined;

for (const root of [checkout, baseline].filter(Boolean)) {
  if (!fs.existsSync(path.join(root, 'dist', 'compose/app.js'))) {
    console.error(`bench: ${root}/dist/compose/app.js not found; run \`npm run build\` in ${root} first`);
    process.exit(1);
  }
}
if (!fs.existsSync(RG)) {
  console.error(`bench: ripgrep not found at ${RG}; install it with \`apt-get install ripgrep\``);
  process.exit(1);
}

const { questions } = JSON.parse(fs.readFileSync(QUESTIONS_FILE, 'utf8'));
const { isStopword } = await import(path.join(ROOT, 'dist', 'core', 'text', 'stopwords.js'));

// ---------------------------------------------------------------------------------------------------
// Where each answer is defined, in the measured checkout's src/

const TOP_LEVEL = /^(export|function|class|const|let|interface|type|enum|async function)\b/;
const COMMENT = /^\s*(\/\*\*?|\*|\/\/)/;

/** The 1-based definition line of `symbol` in `lines`, or 0 when neither regex finds it. */
function definitionLine(lines, symbol) {
  const strong = new RegExp(`(function|class|const|let|interface|type)\\s+${symbol}\\b`);
  const weak = new RegExp(`${symbol}\\s*[(:=]`);
  for (const re of [strong, weak]) {
    const i = lines.findIndex((l) => re.test(l));
    if (i >= 0) return i + 1;
  }
  return 0;
}

/** Each question's `{def, end}`: its symbol's definition line and the end of the span the grep baseline credits. */
function spansIn(root) {
  return questions.map((q) => {
    const file = path.join(root, q.file);
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
    const def = definitionLine(lines, q.symbol);
    if (!def) process.stderr.write(`src-questions: ${q.symbol} not found in ${file}: its question counts as a miss\n`);
    const next = lines.findIndex((l, i) => i >= def && TOP_LEVEL.test(l));
    let start = def; // widened over the doc comment right above the definition
    while (start > 1 && COMMENT.test(lines[start - 2])) start--;
    return { def, start, end: next >= 0 ? next : def + 39 };
  });
}

// ---------------------------------------------------------------------------------------------------
// Grep baseline

/** The question's search words: lowercased, no stopwords, longer than 2 letters, each once. */
function wordsOf(question) {
  const words = question.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return [...new Set(words.filter((w) => w.length > 2 && !isStopword(w)))];
}

/** The top K files of `root`/src for `question`, each with its line holding the most question words. */
function grepTop(root, question) {
  const words = wordsOf(question);
  let out = '';
  try {
    out = execFileSync(RG, ['-i', '-n', '-F', '--no-heading', ...words.flatMap((w) => ['-e', w]), 'src'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    if (err.status !== 1) throw err; // 1: no match
  }
  const files = new Map(); // path → {words: Set, lines, best: {line, n}}
  for (const row of out.split('\n')) {
    const m = /^([^:]+):(\d+):(.*)$/.exec(row);
    if (!m) continue;
    const text = m[3].toLowerCase();
    const found = words.filter((w) => text.includes(w));
    const f = files.get(m[1]) ?? { words: new Set(), lines: 0, best: { line: 0, n: 0 } };
    for (const w of found) f.words.add(w);
    f.lines++;
    if (found.length > f.best.n) f.best = { line: Number(m[2]), n: found.length };
    files.set(m[1], f);
  }
  return [...files.entries()]
    .sort(([pa, a], [pb, b]) => b.words.size - a.words.size || b.lines - a.lines || pa.localeCompare(pb))
    .slice(0, K)
    .map(([file, f]) => ({ file, line: f.best.line }));
}

function grepBaseline(root) {
  const spans = spansIn(root);
  grepTop(root, questions[0].question); // warm-up
  const ms = [];
  let file = 0;
  let symbol = 0;
  const misses = [];
  questions.forEach((q, i) => {
    const t = performance.now();
    const top = grepTop(root, q.question);
    ms.push(performance.now() - t);
    const inFile = top.filter((h) => h.file === q.file);
    const fileHit = inFile.length > 0;
    const symbolHit = inFile.some((h) => h.line >= spans[i].start && h.line <= spans[i].end);
    file += fileHit;
    symbol += symbolHit;
    if (!symbolHit) misses.push(`grep miss${fileHit ? ' (file found)' : ''}: ${q.question} → ${q.file} ${q.symbol}; got ${top.map((h) => `${h.file}:${h.line}`).join(', ')}`); // prettier-ignore
  });
  return { label: 'grep baseline', root, file: file / questions.length, symbol: symbol / questions.length, ms, misses };
}

// ---------------------------------------------------------------------------------------------------
// /context of a built checkout

async function contextOf(label, root, codeModel) {
  process.stderr.write(`src-questions: ${label}: indexing ${root}/src…\n`);
  const dist = (p) => path.join(root, 'dist', p);
  const { loadConfig } = await import(dist('config/config.js'));
  const { createApp } = await import(dist('compose/app.js'));
  const { createLogger } = await import(dist('lib/logger.js'));
  const dir = makeTmpDir('trawl-bench-srcq-');
  const app = createApp(loadConfig({}, { dataDir: dir, logLevel: 'silent', codeModel }), { logger: createLogger('silent') }); // prettier-ignore
  const ctx = { requestId: 'bench', logger: app.logger, signal: new AbortController().signal, caller: null, clock: app.clock, betas: new Set() }; // prettier-ignore
  const t0 = performance.now();
  await app.services.indexer.indexTree({ root: path.join(root, 'src'), name: 'src' });
  const indexSeconds = (performance.now() - t0) / 1000;
  const spans = spansIn(root);
  await app.services.context.run({ query: 'warm up', tokensNum: 2000 }, ctx);
  const ms = [];
  let file = 0;
  let symbol = 0;
  const misses = [];
  for (const [i, q] of questions.entries()) {
    const t = performance.now();
    const out = await app.services.context.run({ query: q.question, tokensNum: 2000 }, ctx);
    ms.push(performance.now() - t);
    const top = out.sources.slice(0, K).map((s) => {
      const m = /^(.*):(\d+)-(\d+)$/.exec(s.location);
      return m ? { file: m[1], start: Number(m[2]), end: Number(m[3]) } : { file: s.location, start: 0, end: 0 };
    });
    const inFile = top.filter((h) => h.file === q.file);
    const fileHit = inFile.length > 0;
    const symbolHit = inFile.some((h) => h.start <= spans[i].def && spans[i].def <= h.end);
    file += fileHit;
    symbol += symbolHit;
    if (!symbolHit) misses.push(`${label} miss${fileHit ? ' (file found)' : ''}: ${q.question} → ${q.file} ${q.symbol}; got ${top.map((h) => `${h.file}:${h.start}-${h.end}`).join(', ')}`); // prettier-ignore
  }
  await app.close();
  removeTmpDir(dir);
  return { label, root, file: file / questions.length, symbol: symbol / questions.length, ms, misses, indexSeconds };
}

// ---------------------------------------------------------------------------------------------------

const grep = grepBaseline(checkout);
const sides = [];
if (baseline) {
  sides.push(await contextOf('before', baseline));
  sides.push(await contextOf('now', checkout, CODE_MODEL));
} else {
  // before and after the code model, in this build: words only, then the hybrid ranking
  sides.push(await contextOf('words only (--code-model off)', checkout, 'off'));
  sides.push(await contextOf(`with the code model (${CODE_MODEL ?? 'shipped'})`, checkout, CODE_MODEL));
}

const pct = (x) => fmt(100 * x, 0) + '%';
const rows = [
  ['grep baseline (rg over the question words)', pct(grep.file), pct(grep.symbol), fmt(summarize(grep.ms).median, 1)],
  ...sides.map((s) => [`/context, ${s.label}`, pct(s.file), pct(s.symbol), fmt(summarize(s.ms).median, 1)]),
];
console.log('## 50 questions about src/ (bench/src-questions.mjs)\n');
console.log(machineLine());
console.log(`\n${questions.length} questions from bench/data/src-questions.json; recall@${K}. Builds: ${sides.map((s) => `${s.label} = ${s.root} (src/ indexed in ${fmt(s.indexSeconds, 1)} s)`).join('; ')}.\n`); // prettier-ignore
console.log(mdTable(['method', `file recall@${K}`, `symbol recall@${K}`, 'p50 ms'], rows));
if (SHOW_MISSES)
  console.log(`\n${[...grep.misses, ...sides.flatMap((s) => s.misses)].map((m) => `- ${m}`).join('\n')}`);
const r = (x) => x.toFixed(2);
const contextFields = (s) => ({ src_q_context_file_r5: r(s.file), src_q_context_symbol_r5: r(s.symbol) });
const named = sides.map((s, i) => ({ ...s, label: baseline ? s.label : i === 0 ? 'off' : s.label }));
console.log(
  `\n${headlineOf(named, contextFields)} src_q_grep_file_r5=${r(grep.file)} src_q_grep_symbol_r5=${r(grep.symbol)}`,
);
