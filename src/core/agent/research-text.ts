/**
 * The texts of a research run: what a row searches for, the instructions the model gets (the caller's,
 * rows to enrich, entries to leave out, an earlier run's findings), the exclusion test, and a
 * structured answer rendered as plain text.
 */
/** What the instructions are made of (the fields of a research request). */
export interface InstructionParts {
  systemPrompt?: string;
  rows?: Record<string, unknown>[];
  exclusion?: Record<string, unknown>[];
  prior?: { text: string };
}

/** The values of a row, for searching: strings and numbers, joined. */
export const rowText = (row: Record<string, unknown>) =>
  Object.values(row)
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .join(' ')
    .slice(0, 300);

/** The run's instructions: the caller's, the rows to enrich, what not to surface, an earlier run's findings. */
export function instructions(request: InstructionParts): string | undefined {
  const parts = [request.systemPrompt];
  if (request.rows?.length)
    parts.push(
      `Rows to enrich or expand (keep their values; add what the sources show):\n${JSON.stringify(request.rows).slice(0, 6000)}`,
    );
  if (request.exclusion?.length)
    parts.push(`Do not include any of these entries:\n${JSON.stringify(request.exclusion).slice(0, 3000)}`);
  if (request.prior)
    parts.push(
      `An earlier run on this task found:\n${request.prior.text.slice(0, 4000)}\nContinue from it: confirm, correct and complete it.`,
    );
  const text = parts.filter(Boolean).join('\n\n');
  return text || undefined;
}

/** Whether a result is one of the entries not to surface: same URL, same domain, or its name in the title. */
export function exclusionTest(
  entries: Record<string, unknown>[],
): (r: { url: string; title?: string | null }) => boolean {
  const urls = new Set<string>();
  const domains: string[] = [];
  const names: string[] = [];
  for (const e of entries) {
    if (typeof e.url === 'string') urls.add(e.url.replace(/\/+$/, ''));
    if (typeof e.domain === 'string') domains.push(e.domain.toLowerCase().replace(/^www\./, ''));
    if (typeof e.name === 'string' && e.name.trim().length > 2) names.push(e.name.trim().toLowerCase());
  }
  return (r) => {
    if (urls.has(r.url.replace(/\/+$/, ''))) return true;
    const host = URL.canParse(r.url) ? new URL(r.url).hostname.toLowerCase().replace(/^www\./, '') : '';
    if (domains.some((d) => host === d || host.endsWith(`.${d}`))) return true;
    const title = (r.title ?? '').toLowerCase();
    return names.some((n) => title.includes(n));
  };
}

/** A structured answer as plain text: one `path: value` line per leaf. */
export function renderStructured(value: unknown, path = ''): string {
  if (Array.isArray(value)) return value.map((v, i) => renderStructured(v, `${path}[${i}]`)).join('\n');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => renderStructured(v, path ? `${path}.${k}` : k))
      .join('\n');
  }
  return `${path}: ${value === null ? '(not found)' : String(value)}`;
}
