/**
 * Narrow ports: every operation declares the services it uses (src/ops/define-op.ts `uses`), is handed
 * only those by src/ops/invoke.ts, and fails the typecheck when it reaches one it did not declare.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Services } from '../../../src/core/ports.js';
import { plainAnswer } from '../../../src/ops/reply.js';
import { defineOp, servicesFor } from '../../../src/ops/define-op.js';
import { OPERATIONS } from '../../../src/ops/registry.js';

const hints = { readOnlyHint: true, openWorldHint: false };
const answer = (out: Record<string, unknown>) => plainAnswer('probe', out);

describe('the services an operation declares', () => {
  it('are named by every operation, and are services of the composition root', () => {
    const names: readonly (keyof Services)[] = ['keys', 'accounts', 'audit', 'agentRuns', 'monitors', 'search', 'similar', 'contents', 'synthesis', 'context', 'status', 'operatorJobs', 'tasks']; // prettier-ignore
    for (const op of OPERATIONS) {
      expect(op.uses.length, `${op.name} declares what it uses`).toBeGreaterThan(0);
      for (const name of op.uses) expect(names, `${op.name} uses ${name}`).toContain(name);
    }
  });

  it('are all an operation is handed', () => {
    const op = defineOp({
      name: 'probe',
      tool: 'probe',
      title: 'Probe',
      description: 'Reads what it was handed.',
      capability: 'search',
      access: { resource: 'index', verb: 'read' },
      route: { method: 'GET', path: '/probe' },
      output: z.object({ handed: z.array(z.string()) }),
      annotations: hints,
      render: answer,
      uses: ['search', 'contents'],
      run: async (services) => ({ handed: Object.keys(services).sort() }),
    });
    const all = { search: {}, contents: {}, keys: {}, accounts: {} } as unknown as Services;
    expect(Object.keys(servicesFor(op, all)).sort()).toEqual(['contents', 'search']);
  });

  it('bound what the run may reach, at typecheck', () => {
    defineOp({
      name: 'reach',
      tool: 'reach',
      title: 'Reach',
      description: 'Reaches a service it did not declare.',
      capability: 'search',
      access: { resource: 'index', verb: 'read' },
      route: { method: 'GET', path: '/reach' },
      output: z.object({}),
      annotations: hints,
      render: answer,
      uses: ['search'],
      // @ts-expect-error -- `keys` is not among the services the op declared
      run: async (services) => (services.keys ? {} : {}),
    });
    expect(true).toBe(true);
  });
});
