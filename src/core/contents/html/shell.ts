/**
 * Tells a JavaScript application shell (an empty mount point plus scripts) from a page whose static
 * HTML carries its content, so the fetcher knows when rendering in a browser is worth it.
 */
import type { Element, ParentNode } from 'domhandler';
import { isTag } from './dom.js';

const MOUNT_IDS =
  /^(?:root|app|__next|__nuxt|___gatsby|svelte|app-root|react-root|main-app|application|ember-app|q-app|mount|spa-root)$/i;
const MOUNT_TAGS = new Set(['app-root', 'my-app', 'ion-app', 'flt-glass-pane', 'flutter-view']);
const NOSCRIPT_JS =
  /enable javascript|javascript (?:is )?(?:required|disabled|must be enabled|needs to be enabled)|requires? javascript|turn on javascript|need(?:s)? javascript|without javascript|activate javascript|javascript to run this app/i;

/** What the shell test looks at. */
export interface ShellSignals {
  /** Characters of visible text in the cleaned body. */
  textChars: number;
  /** `<script>` elements (not JSON data islands). */
  scripts: number;
  /** Text of `<noscript>` elements. */
  noscriptText: string;
}

function hasMountPoint(node: ParentNode, depth: number): boolean {
  for (const child of node.children) {
    if (!isTag(child)) continue;
    const el = child as Element;
    if (MOUNT_TAGS.has(el.name) || MOUNT_IDS.test(el.attribs.id ?? '') || 'data-reactroot' in el.attribs) return true;
    if ('ng-app' in el.attribs || 'ng-version' in el.attribs) return true;
    if (depth < 3 && hasMountPoint(el, depth + 1)) return true;
  }
  return false;
}

/** True when the static HTML looks like a JavaScript shell with no real content. */
export function looksLikeShell(body: ParentNode, s: ShellSignals): boolean {
  const noscriptSaysJs = NOSCRIPT_JS.test(s.noscriptText);
  if (s.textChars >= 1500) return false;
  const mount = hasMountPoint(body, 0);
  if (s.textChars < 250) return mount || noscriptSaysJs || s.scripts >= 3;
  return noscriptSaysJs && (mount || s.scripts >= 5) && s.textChars < 800;
}
