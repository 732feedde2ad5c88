/**
 * One description per operation: name, wire schemas, REST route, MCP tool metadata, handler. Both
 * doors and the OpenAPI document are built from these, so a schema change shows up everywhere at once.
 */
import { z } from 'zod';
import { ServiceError } from '../errors.js';
import type { ServiceContext } from '../core/context.js';
import type { Pricing } from '../core/accounts/bounds.js';
import type { Scope } from '../core/access/scopes.js';
import type { ResourceKind } from '../core/access/access.js';
import type { Services } from '../core/ports.js';
import type { ByteUpload } from '../core/operator/upload.js';
import type { Answer } from './reply.js';
import type { ReplyNotes } from './reply-notes.js';
import type { ToolHints, ToolText } from './tool-text.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A service an operation may declare it uses (core/ports.ts). */
export type ServiceName = keyof Services;

/**
 * The capability an operation belongs to; it is also the key scope the operation needs (`admin:team`
 * for a team's own accounts, `admin` for the installation's: src/core/access/scopes.ts).
 */
export type Capability = Scope;

/** What an operation does to the resource it acts on. */
export type AccessVerb = 'create' | 'read' | 'list' | 'change' | 'delete';

/**
 * The stored resource an operation acts on, and how. Who reaches a resource of that kind is the core's
 * one rule (src/core/access/access.ts, RESOURCES); the operation's service asks it for every read, list,
 * change and delete. Every operation declares this (test/unit/ops/access.test.ts), and the authorization
 * matrix of docs/accounts.md is drawn from it.
 */
export interface OpAccess {
  resource: ResourceKind;
  verb: AccessVerb;
}

export type { ToolHints } from './tool-text.js';

/** A beta feature gated by a token of the `Svc-Beta` header. */
export interface BetaRule<I> {
  token: string;
  feature: string;
  /** Dotted path of the field that asks for the feature. */
  field: string;
  uses(input: I): boolean;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** What a rendering may use besides the output: the call's input and the notes kept beside it. */
export interface RenderInfo {
  input: Record<string, unknown>;
  notes: ReplyNotes;
}
type Out<T> = T extends z.ZodType ? z.output<T> : unknown;
/** An operation's input: its path, query and body fields, and the file an `upload` operation was sent. */
export type OpInput<P, Q, B> = Out<P> & Out<Q> & Out<B> & { upload?: ByteUpload };

/**
 * REST only: the body is a file of `mediaType`, handed to the operation unread as `input.upload` (the
 * service streams it, with its own size limit) rather than parsed as JSON.
 */
export interface UploadSpec {
  mediaType: string;
  /** What the file is (the OpenAPI document's request body). */
  description: string;
}

export interface OpSpec<
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends AnyObject | undefined,
  O extends z.ZodType,
  U extends ServiceName,
> {
  name: string;
  tool: string;
  /**
   * Operations of one tool group are one MCP tool (`toolGroup.tool`) with an `action` argument, so a
   * family of operations does not flood an agent's tool list (docs/mcp.md).
   */
  toolGroup?: { tool: string; action: string };
  title: string;
  description: string;
  /** The scope a key needs; undefined for a REST-only operation any key may call (its own MCP tasks). */
  capability: Capability | undefined;
  /** The resource the operation acts on (required: an operation cannot skip the ownership rule). */
  access: OpAccess;
  route: { method: HttpMethod; path: string };
  params?: P;
  query?: Q;
  body?: B;
  upload?: UploadSpec;
  output: O;
  /** Monitor routes answer errors as `{error}`; the others use the standard envelope. */
  errorBody?: 'envelope' | 'simple';
  successStatus?: number;
  /** Whether responses carry `requestId` in the body (the spec's search, contents, context ops). */
  requestIdInBody?: boolean;
  /** The hints of the operation's MCP tool, or its part of its group's; REST-only operations have none. */
  annotations?: ToolHints;
  /** What tools/list shows of the operation's own MCP tool (src/ops/tool-text.ts); not for a group's or REST-only ones. */
  toolText?: ToolText;
  betas?: BetaRule<OpInput<P, Q, B>>[];
  /** The answer as a model reads it (the MCP door fences, budgets and pages it). */
  render: (output: z.output<O>, info: RenderInfo) => Answer;
  /** MCP-only input fields (e.g. a reading offset), added to the tool's input schema. */
  toolExtras?: z.ZodRawShape;
  /** MCP-only defaults applied to a tool call's arguments before the handler runs. */
  toolDefaults?: (args: OpInput<P, Q, B> & Record<string, unknown>) => OpInput<P, Q, B>;
  /**
   * The services the operation uses: its run (and stream or events) is handed these and no others, so
   * reaching one it did not declare fails the typecheck.
   */
  uses: readonly U[];
  run: (services: Pick<Services, U>, input: OpInput<P, Q, B>, ctx: ServiceContext) => Promise<z.input<O>>;
  /** The most a call can cost in dollars, from its input and the prices; free without. */
  maxCost?: (input: OpInput<P, Q, B>, pricing: Pricing) => number;
  /** The operation keeps the request's content (a monitor's query): refused for zero-retention teams. */
  retainsContent?: boolean;
  /** Not an MCP tool (the admin routes are REST only). */
  restOnly?: boolean;
  /** REST only: when the input asks for a stream, the `data:` frames of a `text/event-stream` answer. */
  stream?: StreamSpec<OpInput<P, Q, B>, Pick<Services, U>>;
  /** REST only: an answer as named events with ids (agent runs), when the caller asks for a stream. */
  events?: EventStreamSpec<OpInput<P, Q, B>, z.output<O>, Pick<Services, U>>;
}

/** One event of an event stream: sent as `id:`, `event:` and `data:` lines. */
export interface StreamEvent {
  id: number;
  event: string;
  data: unknown;
}

/**
 * An answer as an event stream (`Accept: text/event-stream`): the handler runs first, then the events
 * are sent from `Last-Event-ID` on, with `: keep-alive` comments while idle, until they end.
 */
export interface EventStreamSpec<I, O, S = Services> {
  /** The answer is always the event stream (`when` is then true for every call): the OpenAPI document says so. */
  only?: boolean;
  when(input: I, acceptsEventStream: boolean): boolean;
  events(services: S, input: I, output: O, ctx: ServiceContext, lastEventId: number): AsyncIterable<StreamEvent>;
}

/** A streamed answer: each frame is sent as one `data: <JSON>` event, then `data: [DONE]`. */
export interface StreamSpec<I, S = Services> {
  when(input: I): boolean;
  /** One frame's wire schema (the OpenAPI document's `text/event-stream` response). */
  frame: z.ZodType;
  /** Errors before the first frame become an ordinary error response; later ones end the stream. */
  frames(services: S, input: I, ctx: ServiceContext): AsyncIterable<unknown>;
}

export interface Operation {
  name: string;
  tool: string;
  toolGroup: { tool: string; action: string } | undefined;
  title: string;
  description: string;
  capability: Capability | undefined;
  access: OpAccess;
  route: { method: HttpMethod; path: string };
  params: AnyObject | undefined;
  query: AnyObject | undefined;
  body: AnyObject | undefined;
  upload: UploadSpec | undefined;
  output: z.ZodType;
  errorBody: 'envelope' | 'simple';
  successStatus: number;
  requestIdInBody: boolean;
  annotations: ToolHints | undefined;
  toolText: ToolText | undefined;
  betas: BetaRule<unknown>[];
  /** Params, query and body fields (plus `toolExtras`) as one object: the MCP tool's input. */
  toolInput: AnyObject;
  toolDefaults(args: Record<string, unknown>): Record<string, unknown>;
  render(output: unknown, info: RenderInfo): Answer;
  /** The services `run`, `stream` and `events` are handed (src/ops/invoke.ts picks them). */
  uses: readonly ServiceName[];
  /** Runs on the services the op declared (`uses`); invoke.ts hands it just those. */
  run(services: Partial<Services>, input: unknown, ctx: ServiceContext): Promise<unknown>;
  maxCost(input: unknown, pricing: Pricing): number;
  /** Whether calls cost money (the op declares `maxCost`): x402 can pay for these without a key. */
  priced: boolean;
  retainsContent: boolean;
  restOnly: boolean;
  stream?: StreamSpec<unknown, Partial<Services>>;
  events?: EventStreamSpec<unknown, unknown, Partial<Services>>;
}

/** Builds an Operation from its spec; the MCP input merges path, query and body fields. */
export function defineOp<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends AnyObject | undefined = undefined,
  O extends z.ZodType = z.ZodType,
  const U extends ServiceName = never,
>(spec: OpSpec<P, Q, B, O, U>): Operation {
  const extra = { ...(spec.params?.shape ?? {}), ...(spec.query?.shape ?? {}), ...(spec.toolExtras ?? {}) };
  const toolInput = spec.body ? spec.body.safeExtend(extra) : z.object(extra);
  return {
    name: spec.name,
    tool: spec.tool,
    toolGroup: spec.toolGroup,
    title: spec.title,
    description: spec.description,
    capability: spec.capability,
    access: spec.access,
    route: spec.route,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    upload: spec.upload,
    output: spec.output,
    errorBody: spec.errorBody ?? 'envelope',
    successStatus: spec.successStatus ?? 200,
    requestIdInBody: spec.requestIdInBody ?? false,
    annotations: spec.annotations,
    toolText: spec.toolText,
    betas: (spec.betas ?? []) as BetaRule<unknown>[],
    toolInput: toolInput as AnyObject,
    toolDefaults: (spec.toolDefaults ?? ((args) => args)) as Operation['toolDefaults'],
    render: spec.render as Operation['render'],
    uses: spec.uses,
    run: spec.run as Operation['run'],
    maxCost: (spec.maxCost ?? (() => 0)) as Operation['maxCost'],
    priced: spec.maxCost !== undefined,
    retainsContent: spec.retainsContent ?? false,
    restOnly: spec.restOnly ?? false,
    stream: spec.stream as Operation['stream'],
    events: spec.events as Operation['events'],
  };
}

/** The services `op` declared, picked from the record the composition root filled (and no others). */
export function servicesFor(op: Pick<Operation, 'uses'>, services: Services): Partial<Services> {
  return Object.fromEntries(op.uses.map((name) => [name, services[name]])) as Partial<Services>;
}

/**
 * `build` memoised per input object: an op's price bound and its run read one plan of the same validated
 * input (the doors pass that one object to both).
 */
export function oncePerInput<I extends object, P>(build: (input: I) => P): (input: I) => P {
  const built = new WeakMap<I, P>();
  return (input) => {
    if (!built.has(input)) built.set(input, build(input));
    return built.get(input)!;
  };
}

/** The MCP tool an operation is served by: its own, or its group's. */
export function toolNameOf(op: Operation): string {
  return op.toolGroup?.tool ?? op.tool;
}

/** Throws when the input uses a beta feature whose token the request did not send. */
export function checkBetas(op: Operation, input: unknown, betas: ReadonlySet<string>): void {
  for (const rule of op.betas) {
    if (rule.uses(input) && !betas.has(rule.token)) {
      throw new ServiceError(
        'INVALID_REQUEST_BODY',
        `${rule.field}: ${rule.feature} is a beta feature; send the header "Svc-Beta: ${rule.token}" to use it`,
        { field: rule.field },
      );
    }
  }
}
