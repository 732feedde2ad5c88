/** `trawl openapi`: the OpenAPI document on stdout, for client generators. */
import { buildOpenApi } from '../http/openapi.js';
import { OPERATIONS } from '../ops/registry.js';
import { VERSION } from '../version.js';

export function printOpenApi(): void {
  process.stdout.write(`${JSON.stringify(buildOpenApi(OPERATIONS, VERSION), null, 2)}\n`);
}
