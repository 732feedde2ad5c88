/**
 * The Node.js line a process runs on, against the lines Trawl supports (package.json `engines`) and their
 * end-of-life dates (nodejs.org's release schedule), for `trawl doctor` and GET /status.
 */

/** Each supported line's end of life (the last day it gets security fixes). */
export const NODE_LINES: Readonly<Record<number, string>> = { 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

/** The runtime's part of a status report. */
export interface RuntimeStatus {
  /** `process.version`, e.g. `v20.20.2`. */
  node: string;
  /** Whether `engines` names this line. */
  supported: boolean;
  /** This line's end-of-life date, when it is a supported line. */
  endOfLife?: string;
  /** Whether that date has passed on the report's day. */
  ended: boolean;
}

/** The runtime status of Node `version` on the day `now`. */
export function nodeLineStatus(version: string, now: Date): RuntimeStatus {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const endOfLife = NODE_LINES[major];
  if (!endOfLife) return { node: version, supported: false, ended: false };
  return { node: version, supported: true, endOfLife, ended: now.toISOString().slice(0, 10) > endOfLife };
}

/** The supported lines that have not ended on `now`, as words ("22 or 24"). */
export function livingLines(now: Date): string {
  const today = now.toISOString().slice(0, 10);
  const lines = Object.entries(NODE_LINES)
    .filter(([, end]) => end >= today)
    .map(([line]) => line);
  return lines.length > 1 ? `${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}` : (lines[0] ?? 'none');
}
