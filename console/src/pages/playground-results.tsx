/**
 * What the playground shows of an answer: search and contents results (every text from the web as
 * text, links only to http(s)), code context, the measured latency and cost, and "Copy as".
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { dollars, duration } from '../lib/format';
import { snippetsFor, type PlaygroundKind } from '../lib/snippets';
import { ExternalLink } from '../components/external-link';
import { Card, CopyButton } from '../components/ui';

/** One result of /search or /contents, as far as the page reads it. */
export interface Result {
  id: string;
  url: string;
  title?: string | null;
  publishedDate?: string | null;
  author?: string | null;
  text?: string;
  highlights?: string[];
  summary?: string;
}

/** Latency measured by the page, cost, request id, and what else a form adds, as label and value pairs. */
export function Measures(props: {
  latencyMs: number;
  cost?: number;
  requestId?: string;
  extra?: [string, ComponentChildren, string?][];
}) {
  const items: [string, ComponentChildren, string?][] = [
    ['Latency', duration(props.latencyMs), 'result-latency'],
    ['Cost', props.cost === undefined ? '—' : dollars(props.cost), 'result-cost'],
    ...(props.extra ?? []),
    ...(props.requestId ? [['Request', <code key="id">{props.requestId}</code>] as [string, ComponentChildren]] : []),
  ];
  return (
    <dl class="measures" data-testid="result-measures">
      {items.map(([label, value, testid]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd data-testid={testid}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const PREVIEW = 1200;

/** A page's text: the first part, and the rest behind a "Show all" button. */
function LongText(props: { text: string }) {
  const [all, setAll] = useState(false);
  const long = props.text.length > PREVIEW;
  return (
    <div class="long-text">
      <pre class="page-text">{all || !long ? props.text : `${props.text.slice(0, PREVIEW)}…`}</pre>
      {long && (
        <button type="button" class="link" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? 'Show less' : `Show all ${props.text.length.toLocaleString('en-US')} characters`}
        </button>
      )}
    </div>
  );
}

/** Results in order; titles, texts, highlights and summaries render as text. */
export function ResultList(props: { results: Result[] }) {
  if (props.results.length === 0) return <p class="muted">No results.</p>;
  return (
    <ol class="results" data-testid="results">
      {props.results.map((r, i) => (
        <li key={`${r.id}-${i}`} class="result" data-testid="result">
          <h3 class="result-title">
            <ExternalLink url={r.url}>{r.title || r.url}</ExternalLink>
          </h3>
          <p class="result-url muted small">{r.url}</p>
          {(r.publishedDate || r.author) && (
            <p class="muted small">{[r.author, r.publishedDate?.slice(0, 10)].filter(Boolean).join(' · ')}</p>
          )}
          {r.summary && (
            <p class="summary">
              <strong>Summary:</strong> {r.summary}
            </p>
          )}
          {r.highlights && r.highlights.length > 0 && (
            <ul class="highlights">
              {r.highlights.map((h, j) => (
                <li key={j}>{h}</li>
              ))}
            </ul>
          )}
          {r.text && <LongText text={r.text} />}
        </li>
      ))}
    </ol>
  );
}

/** The request as curl, exa-js and an MCP tool call, each with a copy button. */
export function CopyAs(props: { kind: PlaygroundKind; body: Record<string, unknown> }) {
  const s = snippetsFor(props.kind, props.body, location.origin);
  const forms: [string, string, string | null][] = [
    ['curl', 'copy-curl', s.curl],
    ['exa-js', 'copy-exa', s.exaJs],
    ['MCP tool call', 'copy-mcp', s.mcp],
  ];
  return (
    <Card title="Copy as" level={2} testid="copy-as">
      {forms.map(([label, testid, text]) =>
        text === null ? null : (
          <div class="snippet" key={label}>
            <div class="snippet-head">
              <h3>{label}</h3>
              <CopyButton text={text} label={`Copy ${label}`} testid={testid} />
            </div>
            <pre data-testid={`${testid}-text`}>
              <code>{text}</code>
            </pre>
          </div>
        ),
      )}
      {s.notes.map((note) => (
        <p class="muted small" key={note}>
          {note}
        </p>
      ))}
    </Card>
  );
}
