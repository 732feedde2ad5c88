/**
 * Tool results within a token budget, with nothing lost: the first part of an answer, and when it is
 * cut, a snapshot of the whole answer (for the caller's key, 30 minutes; in memory only for
 * zero-retention keys) that `cursor` continues exactly, at no cost and without searching again.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ServiceError } from '../../errors.js';
import { tokenCounter } from '../../lib/tokens.js';
import type { Answer } from '../../ops/reply.js';
import { SNAPSHOT_TTL_MS, type AnswerSnapshots } from '../../core/snapshots/answer-snapshots.js';
import { fitPart, type Position } from './parts.js';

/** Answer cursors start so; other cursors (a list's own page cursor) pass through to the operation. */
export const ANSWER_CURSOR_PREFIX = 'ans.';

/** One tool call, as far as continuing its answer goes. */
export interface CallKey {
  tool: string;
  /** The API key id, or `local` over stdio. */
  owner: string;
  /** The arguments without `cursor` and `maxTokens`. */
  args: Record<string, unknown>;
  /** Zero retention: the snapshot stays in this process's memory, never in the store. */
  memoryOnly: boolean;
}

export interface AnswerPager {
  /** The first part of a fresh answer; a snapshot is kept when there is more. */
  first(answer: Answer, call: CallKey, maxTokens: number): Promise<CallToolResult>;
  /** The part a cursor names, of the answer its snapshot holds. Throws INVALID_REQUEST_BODY (cursor). */
  next(cursor: string, call: CallKey, maxTokens: number): Promise<CallToolResult>;
}

/** A pager over the app's answer snapshots (src/core/snapshots/answer-snapshots.ts). */
export function createAnswerPager(snapshots: AnswerSnapshots): AnswerPager {
  const { now } = snapshots;
  const respond = async (
    answer: Answer,
    call: CallKey,
    maxTokens: number,
    id: string,
    at: Position,
    partNo: number,
  ) => {
    const count = await tokenCounter();
    const cursorFor = (p: Position) => `${ANSWER_CURSOR_PREFIX}${id}.${p.block}.${p.offset}.${partNo + 1}`;
    const part = fitPart(answer, {
      maxTokens,
      count,
      start: at,
      partNo,
      cursorFor,
      continueLine: (p) =>
        `[Answer cut to fit ${maxTokens} tokens. For the rest call ${call.tool} again with the same arguments and cursor: "${cursorFor(p)}".]`,
    });
    return {
      part,
      result: { content: [{ type: 'text' as const, text: part.text }], structuredContent: part.structured },
    };
  };

  return {
    async first(answer, call, maxTokens) {
      const id = randomBytes(12).toString('hex');
      const { part, result } = await respond(answer, call, maxTokens, id, { block: 0, offset: 0 }, 1);
      if (part.next)
        await snapshots.save(
          {
            id,
            owner: call.owner,
            tool: call.tool,
            argsHash: hashArgs(call.args),
            body: JSON.stringify(answer),
            createdMs: now(),
            expiresMs: now() + SNAPSHOT_TTL_MS,
          },
          call.memoryOnly,
        );
      return result;
    },
    async next(cursor, call, maxTokens) {
      const { id, at, partNo } = parseCursor(cursor);
      const snapshot = await snapshots.load(id, call.owner, call.memoryOnly);
      if (!snapshot || snapshot.tool !== call.tool) {
        // another key's answer reads as one that expired: its existence is not disclosed (core/access)
        throw new ServiceError(
          'NOT_FOUND',
          'cursor: its answer is unknown or expired (answers are kept 30 minutes); call again without cursor',
          { field: 'cursor' },
        );
      }
      if (snapshot.argsHash !== hashArgs(call.args)) {
        throw invalidCursor(`continues a ${call.tool} call with other arguments; repeat that call's arguments`);
      }
      const answer = JSON.parse(snapshot.body) as Answer;
      if (at.block > answer.blocks.length) throw invalidCursor('points past the end of its answer');
      return (await respond(answer, call, maxTokens, id, at, partNo)).result;
    },
  };
}

/** Whether a `cursor` argument continues an answer (rather than paging a list). */
export function isAnswerCursor(cursor: unknown): cursor is string {
  return typeof cursor === 'string' && cursor.startsWith(ANSWER_CURSOR_PREFIX);
}

function parseCursor(cursor: string): { id: string; at: Position; partNo: number } {
  const m = /^ans\.([0-9a-f]{24})\.(\d{1,6})\.(\d{1,12})\.(\d{1,6})$/.exec(cursor);
  if (!m) throw invalidCursor('is not a cursor this server gave; pass nextCursor as it came');
  return { id: m[1]!, at: { block: Number(m[2]), offset: Number(m[3]) }, partNo: Number(m[4]) };
}

function invalidCursor(why: string): ServiceError {
  return new ServiceError('INVALID_REQUEST_BODY', `cursor: ${why}`, { field: 'cursor' });
}

/** A stable hash of a call's arguments (keys sorted at every level). */
export function hashArgs(args: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(args)).digest('hex').slice(0, 32);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
