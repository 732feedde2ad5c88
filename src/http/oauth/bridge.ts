/**
 * The bridge from Hono to oidc-provider (a Koa application): the request's Node objects
 * (`c.env.incoming`/`outgoing`, @hono/node-server) are handed to the provider's callback with the
 * `/oauth` prefix taken off the URL (the original kept as `originalUrl`, from which the provider
 * derives its mount path), and the provider writes the response itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type Provider from 'oidc-provider';
import { ServiceError } from '../../errors.js';
import type { HttpEnv } from '../env.js';

/** The mount path of the provider (its issuer's path). */
export const MOUNT = '/oauth';

/** Node's request and response of `c`; NOT_FOUND when the door does not run on Node's server. */
export function nodeObjects(c: Context<HttpEnv>): { req: IncomingMessage; res: ServerResponse } {
  const req = c.env?.incoming;
  const res = c.env?.outgoing;
  if (!req || !res) throw new ServiceError('NOT_FOUND', 'the authorization server answers on the HTTP listener only');
  return { req, res: res as ServerResponse };
}

/**
 * Hands the request to `provider` and waits until it answered. `path` replaces the path the provider
 * sees (the RFC 8414 metadata path is its discovery document), the query kept.
 */
export async function toProvider(c: Context<HttpEnv>, provider: Provider, path?: string): Promise<Response> {
  const { req, res } = nodeObjects(c);
  const original = req.url ?? '/';
  const query = original.includes('?') ? original.slice(original.indexOf('?')) : '';
  const inner = path === undefined ? original.slice(MOUNT.length) || '/' : `${path}${query}`;
  Object.assign(req, { originalUrl: path === undefined ? original : `${MOUNT}${inner}` });
  req.url = inner;
  res.setHeader('x-request-id', c.get('requestId'));
  await new Promise<void>((resolve) => {
    res.once('close', resolve);
    res.once('finish', resolve);
    void provider.callback()(req, res);
  });
  return RESPONSE_ALREADY_SENT;
}
