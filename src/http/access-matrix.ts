/**
 * The authorization matrix of every door, as rows: each REST route and each MCP tool of the registry
 * (src/ops/registry.ts), and each MCP method that reaches a stored resource (src/mcp/access.ts). The
 * expected outcomes are src/ops/access-matrix.ts's; docs/accounts.md renders these sections and
 * test/e2e/access-matrix.test.ts calls every cell.
 */
import type { Operation } from '../ops/define-op.js';
import { toolNameOf } from '../ops/define-op.js';
import type { MatrixEntry } from '../ops/access-matrix.js';
import { OPERATIONS } from '../ops/registry.js';
import { AGENT_RUN_TOOL, MCP_METHODS, type McpMethodAccess } from '../mcp/access.js';

/**
 * Whether an operation's call names one resource (an id in its path: the monitor whose runs it lists, say;
 * or a team to make a key in) rather than acting on the caller's own.
 */
export function targetsOne(op: Operation): boolean {
  return op.params !== undefined || (op.access.verb === 'create' && op.access.resource === 'apiKey');
}

/** The REST route of `op` as a row. */
export function restEntry(op: Operation): MatrixEntry {
  return {
    name: `${op.route.method} ${op.route.path}`,
    door: 'rest',
    capability: op.capability,
    access: op.access,
    priced: op.priced,
    okStatus: op.successStatus,
    targets: targetsOne(op),
  };
}

/** The MCP tool (or the action of a tool group) serving `op`, as a row. */
export function toolEntry(op: Operation): MatrixEntry {
  const name = op.toolGroup ? `${op.toolGroup.tool} ${op.toolGroup.action}` : toolNameOf(op);
  return {
    name,
    door: 'mcp',
    capability: op.capability,
    access: op.access,
    priced: op.priced,
    targets: targetsOne(op),
  };
}

const methodEntry = (m: McpMethodAccess, priced = false): MatrixEntry => ({ ...m, door: 'mcp', priced });

/**
 * The door's own routes that need a key (not in the registry): `GET /metrics` (./metrics.route.ts), the
 * installation's, for `admin` keys; absent when TRAWL_METRICS_LISTEN gives the metrics their own listener.
 */
export const DOOR_ROUTES: MatrixEntry[] = [
  {
    name: 'GET /metrics',
    door: 'rest',
    capability: 'admin',
    access: { resource: 'installation', verb: 'read' },
    priced: false,
    okStatus: 200,
    targets: false,
  },
];

/** The sections of the matrix: REST routes, MCP tools, MCP methods, the door's own routes. */
export function accessMatrixSections(): { title: string; entries: MatrixEntry[] }[] {
  return [
    { title: 'REST routes', entries: OPERATIONS.map(restEntry) },
    {
      title: 'MCP tools (`/mcp`; a refused key gets its HTTP status before any tool runs)',
      entries: [...OPERATIONS.filter((op) => !op.restOnly).map(toolEntry), methodEntry(AGENT_RUN_TOOL, true)],
    },
    { title: 'MCP methods', entries: MCP_METHODS.map((m) => methodEntry(m)) },
    { title: 'Door routes (not in the spec)', entries: DOOR_ROUTES },
  ];
}
