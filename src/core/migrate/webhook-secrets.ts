/**
 * Webhook secrets on the way to PostgreSQL. Replicas share one operator key (`TRAWL_SECRET_KEY`), while
 * a data directory may have sealed its secrets under its own `secret.key`: every sealed secret must open
 * under the shared key, so one that opens only under the directory's key is sealed again while copying.
 * The check runs over every secret before anything is copied, so a secret that neither key opens stops
 * the migration with nothing written. No secret, sealed or open, is ever printed.
 */
import type { Db } from '../../store/sqlite/database.js';
import { createSecretBox, type SecretBox } from '../monitors/secret-box.js';

/** A sealed secret in the source: which row holds it, and the sealed text. */
interface SealedSecret {
  /** What an operator can look up: `monitor mon_…` or `webhook delivery evt_… (monitor mon_…)`. */
  owner: string;
  sealed: string;
}

/** What the check found, and the re-sealer the copy applies to sealed columns. */
export interface SecretPlan {
  /** Secrets that open under the shared key and are copied as they are. */
  kept: number;
  /** Secrets that open only under the directory's key, sealed again under the shared key. */
  resealed: number;
  /** The sealed value as PostgreSQL gets it. */
  reseal(sealed: string): string;
}

function sealedSecrets(db: Db): SealedSecret[] {
  const monitors = db.prepare('SELECT id, secret FROM monitors ORDER BY seq').all() as { id: string; secret: string }[]; // prettier-ignore
  const deliveries = db.prepare('SELECT event_id, monitor_id, secret FROM webhook_deliveries ORDER BY seq').all() as {
    event_id: string;
    monitor_id: string;
    secret: string;
  }[];
  return [
    ...monitors.map((m) => ({ owner: `monitor ${m.id}`, sealed: m.secret })),
    ...deliveries.map((d) => ({ owner: `webhook delivery ${d.event_id} (monitor ${d.monitor_id})`, sealed: d.secret })), // prettier-ignore
  ];
}

/** The reason `box` does not open `sealed`, or undefined when it does. */
function refusal(box: SecretBox | undefined, sealed: string): string | undefined {
  if (!box) return 'the data directory has no secret.key';
  try {
    box.open(sealed);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Checks that every sealed secret of `db` opens under `sharedKey` or `dirKey` (the directory's
 * secret.key, when it has one). Throws, naming the first monitor or delivery that neither opens and
 * why, before anything is copied.
 */
export function planSecrets(db: Db, sharedKey: Buffer, dirKey: Buffer | undefined): SecretPlan {
  const shared = createSecretBox(sharedKey);
  const local = dirKey ? createSecretBox(dirKey) : undefined;
  let kept = 0;
  let resealed = 0;
  for (const s of sealedSecrets(db)) {
    const underShared = refusal(shared, s.sealed);
    if (!underShared) kept++;
    else if (!refusal(local, s.sealed)) resealed++;
    else {
      throw new Error(
        `The webhook secret of ${s.owner} opens under neither TRAWL_SECRET_KEY (${underShared}) nor the data directory's secret.key (${refusal(local, s.sealed)}). ` +
          'Give TRAWL_SECRET_KEY the key this directory ran with; nothing was copied.',
      );
    }
  }
  return {
    kept,
    resealed,
    reseal(sealed) {
      if (!refusal(shared, sealed)) return sealed;
      if (!local) throw new Error('a webhook secret does not open under TRAWL_SECRET_KEY');
      return shared.seal(local.open(sealed));
    },
  };
}
