/**
 * Log lines for a person at a terminal: pino's JSON line turned into `12:04:05 WARN  message key=value`,
 * short, with the level coloured unless NO_COLOR is set. Only the presentation changes: the line was
 * redacted (and made content-free) by the logger before it reaches here.
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '90' },
  30: { name: 'INFO', color: '36' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Fields every line has, or that say nothing to a person reading the terminal. */
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);
/** A field value longer than this is cut (the JSON format keeps it whole). */
const MAX_VALUE = 120;

/** One JSON log line as one readable line (or the line as it was, when it is not pino's JSON). */
export function prettyLine(json: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = LEVELS[entry.level as number] ?? { name: String(entry.level), color: '0' };
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const name = level.name.padEnd(5);
  const shownLevel = color ? `\x1b[${level.color}m${name}\x1b[0m` : name;
  const fields = Object.entries(entry)
    .filter(([k]) => !LEFT_OUT.has(k))
    .map(([k, v]) => `${k}=${shown(k, v)}`);
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  const tail = fields.length ? `${color ? '\x1b[90m' : ''}  ${fields.join(' ')}${color ? '\x1b[0m' : ''}` : '';
  return `${time} ${shownLevel} ${msg}${tail}\n`;
}

function shown(key: string, value: unknown): string {
  if ((key === 'err' || key === 'error') && value && typeof value === 'object') {
    const err = value as { type?: unknown; message?: unknown };
    return JSON.stringify(`${typeof err.type === 'string' ? `${err.type}: ` : ''}${String(err.message ?? '')}`);
  }
  const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** A stream pino writes its JSON lines to, that writes them readable to `out`. */
export function prettyStream(out: NodeJS.WritableStream, color: boolean): { write(line: string): void } {
  return { write: (line) => void out.write(prettyLine(line.trimEnd(), color)) };
}
