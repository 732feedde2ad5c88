/**
 * The compact argument lists of tools/list, written beside each operation (`toolText.args`), agree
 * with the operation's input schema: the same JSON type, enum values the schema accepts, and bounds
 * within the schema's. So a change of the operation's schema that the compact list no longer matches
 * fails here, not in an agent's call.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../../../src/mcp/catalog.js';
import { fullInputSchema } from '../../../src/mcp/tools.js';

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  items?: Schema;
};

/** The alternatives a field's schema allows (an optional or nullable field is an anyOf). */
const alternatives = (s: Schema): Schema[] => (s.anyOf ? s.anyOf.flatMap(alternatives) : [s]);

describe('advertised arguments', () => {
  it('have the type, values and bounds their operation accepts', () => {
    let checked = 0;
    for (const spec of TOOL_SPECS) {
      const full = fullInputSchema(spec.name) as Schema & Record<string, Schema>;
      const { action, ...fields } = spec.inputSchema.properties as Record<string, Schema>;
      const schemas = (action ? Object.values(full) : [full]) as Schema[];
      for (const [name, compact] of Object.entries(fields)) {
        // a field of a tool group may be in several actions' schemas: the advertised one spans them
        const accepted = schemas.flatMap((s) => (s.properties && name in s.properties ? alternatives(s.properties[name]!) : [])); // prettier-ignore
        const where = `${spec.name}.${name}`;
        expect(accepted.length, where).toBeGreaterThan(0);
        const types = accepted.flatMap((a) => [a.type ?? []].flat());
        // a field the schema leaves untyped (any JSON) accepts whatever is advertised
        if (compact.type !== undefined && accepted.every((a) => a.type !== undefined)) {
          for (const type of [compact.type].flat()) {
            const ok = types.includes(type) || (type === 'integer' && types.includes('number'));
            expect(ok, `${where}: advertised ${type}, accepts ${types.join('|')}`).toBe(true);
          }
        }
        const enums = accepted.flatMap((a) => a.enum ?? []);
        for (const value of compact.enum ?? []) expect(enums, `${where} enum`).toContain(value);
        const min = Math.min(...accepted.map((a) => a.minimum ?? -Infinity));
        const max = Math.max(...accepted.map((a) => a.maximum ?? Infinity));
        if (compact.minimum !== undefined) expect(compact.minimum, `${where} minimum`).toBeGreaterThanOrEqual(min);
        if (compact.maximum !== undefined) expect(compact.maximum, `${where} maximum`).toBeLessThanOrEqual(max);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
