/** JSON → Page: one fenced `json` code block, pretty-printed, capped; the title comes from the URL. */
import type { Page } from '../page.js';
import { codeBlock, linksInText, makePage, titleFromUrl } from './blocks.js';

/** Pretty-printed JSON beyond this many characters is cut (a page this long is data, not reading). */
export const MAX_JSON_CHARACTERS = 200_000;

/** Reads a JSON body; text that does not parse is shown as it came. */
export function parseJson(text: string, url: string): Page {
  let pretty: string;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2) ?? text;
  } catch {
    pretty = text.trim();
  }
  if (pretty.length > MAX_JSON_CHARACTERS) {
    const cut = pretty.lastIndexOf('\n', MAX_JSON_CHARACTERS);
    const kept = pretty.slice(0, cut > 0 ? cut : MAX_JSON_CHARACTERS);
    pretty = `${kept}\n… (${pretty.length - kept.length} more characters not shown)`;
  }
  const code = codeBlock(pretty, 'json');
  return makePage({
    url,
    kind: 'json',
    title: titleFromUrl(url),
    blocks: [code],
    links: linksInText(pretty, url),
    codeBlocks: [{ language: 'json', code: pretty }],
  });
}
