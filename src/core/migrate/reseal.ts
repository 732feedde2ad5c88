/**
 * `trawl secrets reseal`: after a rotation of the operator key (TRAWL_SECRET_KEY the new key,
 * TRAWL_SECRET_KEY_PREVIOUS the old one), every sealed value of the store that the new key does not
 * open is opened (under the old key) and sealed again under the new one, so the old key can be dropped.
 * Nothing secret is printed; a value neither key opens stops the command, naming where it is.
 */
import type { SealedValuesRepo } from '../../store/contracts/sealed-values.js';
import type { SecretBox } from '../monitors/secret-box.js';

export interface ResealReport {
  /** Values sealed again under the current key. */
  resealed: number;
  /** Values already under the current key. */
  kept: number;
}

export async function resealAll(repo: SealedValuesRepo, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, kept: 0 };
  for (const value of await repo.list()) {
    if (box.isCurrent(value.sealed)) {
      report.kept++;
      continue;
    }
    let plain: string;
    try {
      plain = box.open(value.sealed);
    } catch (err) {
      throw new Error(
        `The sealed value of ${value.table} ${value.key} opens under neither TRAWL_SECRET_KEY nor TRAWL_SECRET_KEY_PREVIOUS (${(err as Error).message}); set TRAWL_SECRET_KEY_PREVIOUS to the key it was sealed with.`,
      );
    }
    // a value changed meanwhile was sealed by a process already holding the new key
    if (await repo.replace(value, box.seal(plain))) report.resealed++;
    else report.kept++;
  }
  return report;
}
