/**
 * Compiles caller JSON Schemas and validates values against them in a worker thread, so that a schema
 * slow to compile or a `pattern` that backtracks never blocks the event loop. One worker per process,
 * started on first use (Ajv loads there, not in start-up), one job at a time, each with a deadline
 * (TRAWL_SCHEMA_TIMEOUT_MS): a job past it stops the worker, and the next job starts a new one.
 * The worker keeps the last 200 compiled schemas, keyed by their JSON text.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../../errors.js';

const DEFAULT_TIMEOUT_MS = 2000;
let timeoutMs = DEFAULT_TIMEOUT_MS;

/** Sets the deadline of one compile or validation (createApp, from TRAWL_SCHEMA_TIMEOUT_MS). */
export function setSchemaTimeout(ms: number): void {
  timeoutMs = ms;
}

/**
 * The worker's code. Plain JavaScript run with `eval`, so that it needs no file of its own in dist/
 * or the bundle; Ajv loads from the paths the main thread resolved. `phone` is the one format the spec
 * names beyond ajv-formats' (agent contact fields); other unknown formats are ignored, as JSON Schema
 * allows. `$schema` and a root `$id` are dropped: every schema is read as draft-07 (with `$defs`), and
 * ids of different callers must not meet in one Ajv.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// nothing may reach the process's stdout, the MCP stdio stream
process.stdout.write = () => true;
console.log = console.info = console.debug = console.warn = console.dir = () => {};
const { Ajv } = require(workerData.ajv);
const addFormats = require(workerData.ajvFormats).default;
const MAX_COMPILED = 200;
const RENEW_AFTER = 2000;
const PHONE = /^\\+?[\\d(][\\d(). /-]*\\d(?:\\s*(?:ext\\.?|x|#)\\s*\\d{1,6})?$/i;
const phone = (s) => {
  if (s.length > 64 || !PHONE.test(s)) return false;
  const digits = s.replace(/(?:ext\\.?|x|#)\\s*\\d+$/i, '').replace(/\\D/g, '').length;
  return digits >= 7 && digits <= 15;
};
let ajv;
let compiles = 0;
const compiled = new Map();
function renew() {
  ajv = addFormats(new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false, inlineRefs: false }));
  ajv.addFormat('phone', { type: 'string', validate: phone });
  compiled.clear();
  compiles = 0;
}
function validatorFor(text) {
  const hit = compiled.get(text);
  if (hit) {
    compiled.delete(text);
    compiled.set(text, hit);
    return hit;
  }
  if (compiles >= RENEW_AFTER) renew();
  compiles++;
  const schema = JSON.parse(text);
  if (schema && typeof schema === 'object') {
    delete schema.$schema;
    delete schema.$id;
  }
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    try { ajv.removeSchema(schema); } catch {}
    throw err;
  }
  if (compiled.size >= MAX_COMPILED) {
    const [oldest, entry] = compiled.entries().next().value;
    compiled.delete(oldest);
    try { ajv.removeSchema(entry.schema); } catch {}
  }
  const entry = { validate, schema };
  compiled.set(text, entry);
  return entry;
}
function describe(errors) {
  return (errors || []).slice(0, 5).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ' (' + String(e.params && e.params.additionalProperty) + ')' : '';
    return (e.instancePath || '(root)') + ' ' + (e.message || 'is invalid') + extra;
  }).join('; ');
}
// the same for the caller: the value's field names are the model's words, so a path that is not made of
// identifiers is not repeated, nor the name of an extra property (the messages are Ajv's, on the schema)
const SAFE_PATH = new RegExp('^(/[A-Za-z0-9_-]{1,64}){1,16}$');
function describeSafely(errors) {
  return (errors || []).slice(0, 5).map((e) => {
    const path = !e.instancePath ? '(root)' : SAFE_PATH.test(e.instancePath) ? e.instancePath : 'a field the model named';
    return path + ' ' + (e.message || 'is invalid');
  }).join('; ');
}
renew();
parentPort.on('message', (job) => {
  let entry;
  try {
    entry = validatorFor(job.schema);
  } catch (err) {
    const message = err instanceof RangeError ? 'its references nest too deeply to compile (' + err.message + ')' : String(err && err.message || err);
    return parentPort.postMessage({ id: job.id, compileError: message });
  }
  if (job.kind === 'compile') return parentPort.postMessage({ id: job.id });
  const valid = entry.validate(job.value);
  const errors = entry.validate.errors;
  parentPort.postMessage({ id: job.id, errors: valid ? undefined : describe(errors), safeErrors: valid ? undefined : describeSafely(errors) });
});
parentPort.postMessage({ ready: true });
`;

interface Reply {
  id?: number;
  ready?: boolean;
  compileError?: string;
  errors?: string;
  safeErrors?: string;
}

interface Job {
  id: number;
  kind: 'compile' | 'validate';
  schema: string;
  value?: unknown;
  resolve(reply: Reply): void;
  reject(err: Error): void;
}

const require = createRequire(import.meta.url);
const queue: Job[] = [];
let nextId = 1;
let worker: Worker | undefined;
let ready = false;
let current: { job: Job; timer: NodeJS.Timeout } | undefined;

function start(): Worker {
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ajv: require.resolve('ajv'), ajvFormats: require.resolve('ajv-formats') },
    // a schema that makes the compiler allocate without end fails its request, not the process
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
  });
  w.on('message', (reply: Reply) => {
    if (w !== worker) return;
    if (reply.ready) {
      ready = true;
      return pump();
    }
    if (!current || current.job.id !== reply.id) return;
    clearTimeout(current.timer);
    const { job } = current;
    current = undefined;
    job.resolve(reply);
    pump();
  });
  const lost = (err: Error) => {
    if (w !== worker) return;
    worker = undefined;
    ready = false;
    const failed = current?.job;
    if (current) clearTimeout(current.timer);
    current = undefined;
    // the job that was running when the worker died is answered; the others go to a new worker
    if (failed) failed.resolve({ id: failed.id, compileError: `the schema validator stopped: ${err.message}` });
    else for (const job of queue.splice(0)) job.reject(err);
    pump();
  };
  w.on('error', lost);
  w.on('exit', (code) => lost(new Error(`worker exited with code ${code}`)));
  return w;
}

function pump(): void {
  if (current || queue.length === 0) {
    if (!current && worker) worker.unref();
    return;
  }
  if (!worker) worker = start();
  worker.ref(); // keeps a one-shot command alive while its job runs
  if (!ready) return;
  const job = queue.shift()!;
  const timer = setTimeout(() => expire(job), timeoutMs);
  current = { job, timer };
  worker.postMessage({ id: job.id, kind: job.kind, schema: job.schema, value: job.value });
}

function expire(job: Job): void {
  if (current?.job !== job) return;
  current = undefined;
  const w = worker;
  worker = undefined;
  ready = false;
  void w?.terminate();
  const doing = job.kind === 'compile' ? 'compiling the JSON Schema' : 'validating against the JSON Schema';
  job.reject(
    new ServiceError(
      'INVALID_JSON_SCHEMA',
      `${doing} took longer than ${timeoutMs} ms (TRAWL_SCHEMA_TIMEOUT_MS); simplify it (a "pattern" that backtracks, many alternatives)`,
    ),
  );
  pump();
}

function run(kind: Job['kind'], schema: string, value?: unknown): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    queue.push({ id: nextId++, kind, schema, value, resolve, reject });
    pump();
  });
}

/** JSON texts of schema objects already sent, so a schema used for many values is serialised once. */
const texts = new WeakMap<object, string>();
function textOf(schema: object): string {
  let text = texts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    texts.set(schema, text);
  }
  return text;
}

/**
 * Compiles `schema` in the worker: the compiler's reason when it cannot be compiled, else undefined.
 * Throws INVALID_JSON_SCHEMA when compiling takes longer than the deadline.
 */
export async function compileProblem(schema: object): Promise<string | undefined> {
  return (await run('compile', textOf(schema))).compileError;
}

/** Why a value does not follow a schema: in full (for the model to fix, and the log), and for the caller. */
export interface SchemaProblem {
  /** Up to five `path message` items, the value's own field names included. */
  text: string;
  /** The same without names the value chose (a path not made of identifiers, an extra property's name). */
  safe: string;
}

/**
 * Validates `value` against `schema` in the worker: why it does not follow it (up to five errors, for a
 * model to fix), or undefined when it does. Throws INVALID_JSON_SCHEMA when the schema does not compile
 * or validating takes longer than the deadline.
 */
export async function validationProblems(schema: object, value: unknown): Promise<string | undefined> {
  return (await validationProblem(schema, value))?.text;
}

/** `validationProblems`, with the form an error message may show the caller beside it. Same throws. */
export async function validationProblem(schema: object, value: unknown): Promise<SchemaProblem | undefined> {
  const reply = await run('validate', textOf(schema), value);
  if (reply.compileError) {
    throw new ServiceError('INVALID_JSON_SCHEMA', `the JSON Schema does not compile: ${reply.compileError}`);
  }
  return reply.errors === undefined ? undefined : { text: reply.errors, safe: reply.safeErrors ?? reply.errors };
}

/** Stops the worker (tests, benchmarks); the next job starts a new one. */
export async function stopSchemaWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  ready = false;
  await w?.terminate();
}
