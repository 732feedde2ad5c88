/**
 * RFC 9728 protected-resource metadata, served when OAuth is on: `/.well-known/oauth-protected-resource/mcp`
 * for the MCP endpoint and `/.well-known/oauth-protected-resource` for the REST API. Each names the
 * resource, the authorization servers whose tokens it accepts, the scopes (Trawl's key scopes) and how a
 * token is sent. Public and cacheable briefly; any origin may read them (browser-based MCP clients do).
 */
import type { Context } from 'hono';
import type { DoorAuth, OAuthResource } from '../../compose/door.js';
import { SCOPES } from '../../core/access/scopes.js';
import type { HttpEnv } from '../env.js';

/** The metadata document of a resource. */
export function protectedResourceMetadata(auth: DoorAuth, kind: OAuthResource): Record<string, unknown> {
  return {
    resource: auth.resource(kind),
    authorization_servers: auth.authorizationServers(),
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: kind === 'mcp' ? 'Trawl MCP server' : 'Trawl REST API',
    resource_documentation: `${auth.publicUrl()}/openapi.json`,
  };
}

/** The answer of a metadata request. */
export function metadataResponse(c: Context<HttpEnv>, auth: DoorAuth, kind: OAuthResource): Response {
  return c.json(protectedResourceMetadata(auth, kind), 200, {
    'cache-control': 'public, max-age=300',
    'access-control-allow-origin': '*',
  });
}
