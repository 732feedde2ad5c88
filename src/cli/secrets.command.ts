/**
 * `trawl secrets reseal`: after rotating TRAWL_SECRET_KEY (the old key in TRAWL_SECRET_KEY_PREVIOUS),
 * seals every stored secret (webhook secrets, the OAuth server's keys) under the new key, so the old one
 * can be dropped (docs/operations.md#rotating-the-secret-key). Prints counts, never a secret.
 */
import type { Config } from '../config/config.js';
import { withApp } from './with-app.js';

export function reseal(config: Config): Promise<void> {
  return withApp(config, async (app) => {
    const { resealed, kept } = await app.secrets.reseal();
    process.stdout.write(`re-sealed ${resealed} secret(s) under TRAWL_SECRET_KEY; ${kept} already were\n`);
    if (config.secretKeyPrevious) {
      process.stderr.write('Every secret now opens under TRAWL_SECRET_KEY: remove TRAWL_SECRET_KEY_PREVIOUS.\n');
    }
  });
}
