/**
 * Every operation declares the resource it acts on (src/ops/define-op.ts `access`), with a scope that
 * fits that resource's rule (src/core/access/access.ts); and docs/accounts.md holds the authorization
 * matrix drawn from those declarations as it is now (scripts/access-matrix.mjs writes it).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../../src/core/access/access.js';
import { accessMatrixSections } from '../../../src/http/access-matrix.js';
import { MATRIX_END, MATRIX_START, renderMatrix } from '../../../src/ops/access-matrix.js';
import { OPERATIONS } from '../../../src/ops/registry.js';
import { ROOT } from '../../helpers/app.js';

describe('the access every operation declares', () => {
  it('names a known resource and a verb, with the scope its rule asks for', () => {
    const wrong: string[] = [];
    for (const op of OPERATIONS) {
      const resource = RESOURCES[op.access?.resource];
      if (!resource) {
        wrong.push(`${op.name}: declares no known resource (${JSON.stringify(op.access)})`);
        continue;
      }
      if (!['create', 'read', 'list', 'change', 'delete'].includes(op.access.verb)) wrong.push(`${op.name}: verb ${op.access.verb}`); // prettier-ignore
      const admin = { teamAdmin: 'admin:team', operator: 'admin' }[resource.sharing as string];
      if (admin && op.capability !== admin) wrong.push(`${op.name}: ${resource.sharing} resource needs scope ${admin}, not ${op.capability}`); // prettier-ignore
      if (!admin && op.capability?.startsWith('admin')) wrong.push(`${op.name}: an admin scope on a ${resource.sharing} resource`); // prettier-ignore
      if (admin && !op.restOnly) wrong.push(`${op.name}: administration is not an MCP tool`);
    }
    expect(wrong).toEqual([]);
  });

  it('is drawn into docs/accounts.md as it is now (node scripts/access-matrix.mjs rewrites it)', async () => {
    const file = path.join(ROOT, 'docs/accounts.md');
    const doc = fs.readFileSync(file, 'utf8');
    const start = doc.indexOf(MATRIX_START);
    const end = doc.indexOf(MATRIX_END);
    expect(start, 'the markers of the generated matrix').toBeGreaterThan(0);
    const block = `${MATRIX_START}\n\n${renderMatrix(accessMatrixSections())}\n\n${MATRIX_END}`;
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const next = await prettier.format(doc.slice(0, start) + block + doc.slice(end + MATRIX_END.length), options);
    expect(next === doc, 'docs/accounts.md is out of date with the registry: run npm run build && node scripts/access-matrix.mjs').toBe(true); // prettier-ignore
  });
});
