/**
 * The status report's line on Trawl's code model: its version and whether it is loaded (a running
 * server) or ready (its file reads as a model: `trawl doctor`), or that it is missing and /context
 * ranks by words only, with the fix. Reading the file costs a few tens of ms and calls nothing.
 */
import { loadCodeModel } from '../code/model/code-model.js';
import { codeModelFile, type CodeModelState } from '../code/model/shipped-model.js';
import type { Check } from './report.js';

const NAME = 'codeModel';

/** The check of a model's state: `live` from a running app, else the file `setting` names, read now. */
export function codeModelCheck(setting: string | undefined, provider: boolean, live?: CodeModelState): Check {
  const state = live ?? offlineState(setting, provider);
  const configured = setting !== undefined && setting !== 'off';
  const where = state.file ?? undefined;
  switch (state.state) {
    case 'off':
      return { name: NAME, configured: false, state: 'off', detail: 'off (TRAWL_CODE_MODEL=off): /context ranks by words only' }; // prettier-ignore
    case 'provider':
      return { name: NAME, configured: false, state: 'off', detail: 'not used: the embeddings provider ranks code with /context' }; // prettier-ignore
    case 'loaded':
      return { name: NAME, configured, state: 'ok', model: state.version, url: where, detail: 'loaded; /context ranks with it' }; // prettier-ignore
    case 'unloaded':
      return { name: NAME, configured, state: 'ok', model: state.version, url: where, detail: 'ready; loaded on the first code query' }; // prettier-ignore
    default:
      return {
        name: NAME,
        configured,
        // a file the operator named is broken; the shipped one missing is a note
        state: configured ? 'failed' : 'off',
        url: where,
        detail: `missing (${state.problem ?? 'cannot be read'}): /context ranks by words only`,
      };
  }
}

/** The state a fresh process would reach: the file read as a model now (then dropped). */
function offlineState(setting: string | undefined, provider: boolean): CodeModelState {
  if (provider) return { state: 'provider', file: null };
  if (setting === 'off') return { state: 'off', file: null };
  const file = codeModelFile(setting);
  if (!file) return { state: 'missing', file, problem: 'no package root found to find the shipped model in' };
  try {
    return { state: 'unloaded', file, version: loadCodeModel(file).version };
  } catch (err) {
    return { state: 'missing', file, problem: (err as Error).message };
  }
}
