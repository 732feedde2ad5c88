/**
 * `<pre>` blocks: the code text with its line breaks, and its language from the conventions
 * highlighters use (`language-x`, `lang-x`, `highlight-x`, `highlight-source-x`, `brush: x`,
 * `data-lang`), looked up on the `<pre>`, its `<code>` child and the two wrappers above it.
 */
import type { Element } from 'domhandler';
import { isTag, rawText } from './dom.js';

const CLASS_LANG =
  /(?:^|\s)(?:language|lang|highlight-source|highlight|sourcecode|brush|hljs)(?:-|_|:\s*)([a-z][a-z0-9_+#.-]*)/;
const NOT_LANGUAGES = new Set([
  'none',
  'text',
  'plain',
  'plaintext',
  'nohighlight',
  'notranslate',
  'default',
  'block',
  'wrapper',
  'container',
  'toolbar',
  'line',
  'lines',
  'snippet',
  'source',
  'highlight',
  'hljs',
  'sample',
  'example',
  'output',
  'copy',
  'content',
  'body',
  'tab',
  'tabs',
  'inline',
  'pre',
]);
const ALIASES: Record<string, string> = {
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  sh: 'bash',
  shell: 'bash',
  shellsession: 'console',
  rb: 'ruby',
  yml: 'yaml',
  'c++': 'cpp',
  'c#': 'csharp',
  cs: 'csharp',
  golang: 'go',
  rs: 'rust',
  kt: 'kotlin',
  md: 'markdown',
};

function fromElement(el: Element): string | null {
  const a = el.attribs;
  const data = a['data-lang'] ?? a['data-language'] ?? a['data-code-language'];
  if (data) return normalise(data);
  const cls = a.class?.toLowerCase();
  if (!cls) return null;
  const m = CLASS_LANG.exec(cls);
  if (m?.[1]) return normalise(m[1]);
  return null;
}

function normalise(raw: string): string | null {
  const lang = raw
    .trim()
    .toLowerCase()
    .replace(/^source-/, '');
  if (!lang || NOT_LANGUAGES.has(lang) || lang.length > 20) return null;
  return ALIASES[lang] ?? lang;
}

/** The code language of a `<pre>`, or null when no highlighter convention names one. */
export function codeLanguage(pre: Element): string | null {
  const codeChild = pre.children.find((c): c is Element => isTag(c) && c.name === 'code');
  const candidates: (Element | null)[] = [codeChild ?? null, pre];
  let up = pre.parent;
  for (let i = 0; i < 2 && up && isTag(up); i++, up = up.parent) candidates.push(up);
  for (const el of candidates) {
    const lang = el ? fromElement(el) : null;
    if (lang) return lang;
  }
  return null;
}

/** The code text of a `<pre>`: line breaks kept, surrounding blank lines and trailing spaces dropped. */
export function codeText(pre: Element): string {
  return rawText(pre)
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+$/gm, '')
    .replace(/^\n+|\n+$/g, '');
}

/** A fenced Markdown code block whose fence cannot collide with the code. */
export function fence(code: string, language: string | null): string {
  let ticks = '```';
  while (code.includes(ticks)) ticks += '`';
  return `${ticks}${language ?? ''}\n${code}\n${ticks}`;
}
