/**
 * Progress of long CLI commands on stderr: one redrawn bar on a terminal, plain lines every so many
 * items or seconds otherwise (logs, CI), nothing with `--progress off`.
 */

export type ProgressMode = 'auto' | 'bar' | 'lines' | 'off';

export interface ProgressSnapshot {
  done: number;
  failed: number;
  /** Known work left (crawl frontier); absent when unknown. */
  queued?: number;
  /** Items handled by this run, for the rate (a resumed crawl starts with earlier pages done). */
  handled: number;
  /** Share of the work done, 0-1; default done+failed over done+failed+queued. */
  fraction?: number;
}

export interface ProgressOptions {
  /** Leading word of every line: `crawl`, `import`. */
  label: string;
  /** Plural noun for the rate: `pages`, `records`. */
  unit: string;
  mode: ProgressMode;
  stream?: NodeJS.WriteStream;
  /** Lines mode: a line after this many more items, or `everyMs` without one. */
  everyItems?: number;
  everyMs?: number;
}

export interface ProgressReporter {
  update(snapshot: ProgressSnapshot): void;
  /** A message printed on its own line whatever the mode (a bad record, "stopping"). */
  note(message: string): void;
  /** Draws the last state and leaves the terminal on a fresh line. */
  finish(): void;
}

/** Parses `--progress`: auto, bar, lines or off. */
export function parseProgressMode(value: string | undefined): ProgressMode | undefined {
  const mode = value ?? 'auto';
  return ['auto', 'bar', 'lines', 'off'].includes(mode) ? (mode as ProgressMode) : undefined;
}

/** `m:ss` (or `h:mm:ss`). */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(s >= 3600 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

function bar(fraction: number, width: number): string {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

/** Creates the reporter for the stream; `auto` picks the bar on a TTY and lines otherwise. */
export function createProgress(options: ProgressOptions): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const mode = options.mode === 'auto' ? (stream.isTTY ? 'bar' : 'lines') : options.mode;
  const everyItems = options.everyItems ?? 25;
  const everyMs = options.everyMs ?? 5000;
  const started = performance.now();
  let last: ProgressSnapshot = { done: 0, failed: 0, handled: 0 };
  let lastLineAt = started;
  let lastLineItems = 0;
  let lastDrawAt = 0;
  let drawn = false;

  const parts = (s: ProgressSnapshot, elapsed: number) => {
    const rate = elapsed > 0 ? (s.handled / elapsed) * 1000 : 0;
    const out = [`${s.done} done`];
    if (s.queued !== undefined) out.push(`${s.queued} queued`);
    out.push(`${s.failed} failed`, `${rate.toFixed(1)} ${options.unit}/s`, `${formatElapsed(elapsed)} elapsed`);
    return out;
  };
  const fractionOf = (s: ProgressSnapshot) => {
    if (s.fraction !== undefined) return s.fraction;
    const total = s.done + s.failed + (s.queued ?? 0);
    return total > 0 ? (s.done + s.failed) / total : 0;
  };
  const draw = () => {
    const elapsed = performance.now() - started;
    const line = `${options.label} ${bar(fractionOf(last), 20)} ${Math.round(fractionOf(last) * 100)}% · ${parts(last, elapsed).join(' · ')}`;
    const width = stream.columns || 120;
    stream.write(`\r\x1b[2K${line.slice(0, Math.max(10, width - 1))}`);
    lastDrawAt = performance.now();
    drawn = true;
  };
  const printLine = () => {
    const elapsed = performance.now() - started;
    stream.write(`${options.label}: ${parts(last, elapsed).join(', ')}\n`);
    lastLineAt = performance.now();
    lastLineItems = last.handled;
  };
  const tick = () => {
    if (mode === 'bar') draw();
    else if (mode === 'lines' && performance.now() - lastLineAt >= everyMs) printLine();
  };
  const timer = mode === 'off' ? undefined : setInterval(tick, mode === 'bar' ? 1000 : everyMs);
  timer?.unref();

  return {
    update(snapshot) {
      last = snapshot;
      if (mode === 'bar' && performance.now() - lastDrawAt >= 100) draw();
      else if (mode === 'lines' && snapshot.handled - lastLineItems >= everyItems) printLine();
    },
    note(message) {
      stream.write(`${drawn ? '\r\x1b[2K' : ''}${options.label}: ${message}\n`);
      if (mode === 'bar') draw();
    },
    finish() {
      if (timer) clearInterval(timer);
      if (mode === 'bar') {
        draw();
        stream.write('\n');
      } else if (mode === 'lines' && last.handled !== lastLineItems) printLine();
    },
  };
}
