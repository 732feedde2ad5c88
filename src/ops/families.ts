/**
 * What the operations of one family share, written once and spread into each definition (which still
 * names its own name, route, schemas, uses and tool text): the scope and the resource a family acts on,
 * the action of its tool group, the search-like operations' read of the shared index, the MCP hints,
 * and the run of the typical action on a resource by its id (`byId`).
 */
import type { ResourceKind } from '../core/access/access.js';
import type { ServiceContext } from '../core/context.js';
import type { Services } from '../core/ports.js';
import type { AccessVerb, Capability, ServiceName } from './define-op.js';
import type { ToolGroupText, ToolHints } from './tool-text.js';

const VERBS: readonly AccessVerb[] = ['create', 'read', 'list', 'change', 'delete'];

/** An operation's scope, and what it does to the resource it acts on. */
export interface Acting<C extends Capability, R extends ResourceKind> {
  capability: C;
  access: { resource: R; verb: AccessVerb };
}

/**
 * The operations of one scope acting on one kind of resource, by what each does to it: `...apiKeys.list`
 * spreads the scope and the access of an operation that lists API keys (with `extra`, e.g. REST only).
 * Whom the access lets reach the resource is the core's one rule (src/core/access).
 */
export function actingOn<C extends Capability, R extends ResourceKind, E extends object = object>(
  capability: C,
  resource: R,
  extra?: E,
): Record<AccessVerb, Acting<C, R> & E> {
  const parts = (verb: AccessVerb) => ({ capability, access: { resource, verb }, ...extra }) as Acting<C, R> & E;
  return Object.fromEntries(VERBS.map((verb) => [verb, parts(verb)])) as Record<AccessVerb, Acting<C, R> & E>;
}

/** What an operation of a tool group shares with its family: scope, access, error body, its action. */
export interface GroupAction<C extends Capability, R extends ResourceKind> extends Acting<C, R> {
  errorBody: 'envelope' | 'simple';
  toolGroup: { tool: string; action: string };
}

/**
 * The operations on one kind of owned resource that one MCP tool group serves (docs/mcp.md), by the
 * group's `action`: each acts on the resource with the verb `verbs` gives its action, with the family's
 * scope and error body. An operation spreads its action's parts (`...monitor.get`).
 */
export function groupActions<C extends Capability, R extends ResourceKind, A extends string>(
  family: { capability: C; resource: R; tool: ToolGroupText; errorBody?: 'envelope' | 'simple' },
  verbs: Record<A, AccessVerb>,
): Record<A, GroupAction<C, R>> {
  const acting = actingOn(family.capability, family.resource, { errorBody: family.errorBody ?? 'envelope' });
  const parts = (action: A): GroupAction<C, R> => ({
    ...acting[verbs[action]],
    toolGroup: { tool: family.tool.name, action },
  });
  return Object.fromEntries((Object.keys(verbs) as A[]).map((a) => [a, parts(a)])) as Record<A, GroupAction<C, R>>;
}

type Caller = ServiceContext['caller'];
type ActById = (id: string, caller: Caller) => Promise<unknown>;
/** The methods of service `S` that act on one resource by its id, as the caller. */
type ByIdMethod<S extends ServiceName> = {
  [M in keyof Services[S]]: Services[S][M] extends ActById ? M : never;
}[keyof Services[S]];
type Found<S extends ServiceName, M extends keyof Services[S]> = Awaited<ReturnType<Extract<Services[S][M], ActById>>>;
type RunById<S extends ServiceName, T> = <P extends Pick<Services, S>>(
  services: P,
  input: { id: string },
  ctx: ServiceContext,
) => Promise<T>;

/**
 * The run of the typical action on one owned resource (get, cancel, delete, revoke): the service's
 * `method` on the resource the path's `:id` names, as the caller; `to` maps what it answers to the wire.
 * Generic in the services it is handed, so the operation's `uses` alone says which it gets (a run on
 * a service the operation does not declare fails the typecheck, as an inline one does).
 */
export function byId<S extends ServiceName, M extends ByIdMethod<S>>(service: S, method: M): RunById<S, Found<S, M>>;
export function byId<S extends ServiceName, M extends ByIdMethod<S>, T>(
  service: S,
  method: M,
  to: (found: Found<S, M>) => T,
): RunById<S, T>;
export function byId<S extends ServiceName, M extends ByIdMethod<S>, T>(
  service: S,
  method: M,
  to?: (found: Found<S, M>) => T,
): RunById<S, unknown> {
  return async (services, input, ctx) => {
    const methods = services[service] as Record<M, ActById>;
    const found = await methods[method](input.id, ctx.caller);
    return to ? to(found as Found<S, M>) : found;
  };
}

/**
 * The search-like operations (search, findSimilar, contents, context, answer): each reads the shared
 * index of stored pages and code, which every key with the operation's scope reads (core/access), and
 * answers with `requestId` in its body as the spec's do.
 */
export const READS_INDEX = { access: { resource: 'index' as const, verb: 'read' as const }, requestIdInBody: true };

/** Reads what is stored here: no side effect, nothing outside. */
export const READ_ONLY: ToolHints = { readOnlyHint: true, openWorldHint: false };
/** Reads the web (and the local index): no side effect, reaches outside. */
export const READS_WEB: ToolHints = { readOnlyHint: true, openWorldHint: true };

/** What a call that writes may be besides: destructive, idempotent (repeating it changes nothing more), open-world. */
export type WriteTrait = 'destructive' | 'idempotent' | 'open-world';

/** The hints of a call that writes, with the traits it has (`writes('destructive', 'idempotent')`). */
export function writes(...traits: WriteTrait[]): ToolHints {
  return {
    readOnlyHint: false,
    destructiveHint: traits.includes('destructive'),
    idempotentHint: traits.includes('idempotent'),
    openWorldHint: traits.includes('open-world'),
  };
}
