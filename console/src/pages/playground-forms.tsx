/** The playground's four forms; each sends its request, measures it, and shows the answer. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../lib/api';
import type { PlaygroundKind } from '../lib/snippets';
import { CheckField, FieldGroup, linesOf, numberOf, SelectField, TextArea, TextField } from '../components/fields';
import { Card, ErrorNote } from '../components/ui';
import { CopyAs, Measures, ResultList, type Result } from './playground-results';

interface Exchange<T> {
  output: T | null;
  error: unknown;
  latencyMs: number;
  busy: boolean;
}

/** Sends one JSON request and measures it from the page. */
function useExchange<T>(path: string) {
  const [state, setState] = useState<Exchange<T>>({ output: null, error: null, latencyMs: 0, busy: false });
  const run = async (body: Record<string, unknown>) => {
    setState({ output: null, error: null, latencyMs: 0, busy: true });
    const started = performance.now();
    try {
      const output = await api<T>(path, { method: 'POST', body });
      setState({ output, error: null, latencyMs: performance.now() - started, busy: false });
    } catch (error) {
      setState({ output: null, error, latencyMs: performance.now() - started, busy: false });
    }
  };
  return { ...state, run };
}

/** What every playground answer carries: its cost and the request's id. */
interface Priced {
  costDollars: { total: number };
  requestId: string;
}

/** An exchange's error, or its answer in a card headed by its cost and latency, then what `children` draws. */
function Answered<T extends Priced>(props: {
  ex: Exchange<T>;
  kind: PlaygroundKind;
  title: (output: T) => string;
  extra?: (output: T) => [string, string | number][];
  children: (output: T) => ComponentChildren;
}) {
  const { ex } = props;
  return (
    <>
      <ErrorNote error={ex.error} />
      {ex.output && (
        <Card title={props.title(ex.output)} testid={`${props.kind}-results`}>
          <Measures
            latencyMs={ex.latencyMs}
            cost={ex.output.costDollars.total}
            requestId={ex.output.requestId}
            {...(props.extra && { extra: props.extra(ex.output) })}
          />
          {props.children(ex.output)}
        </Card>
      )}
    </>
  );
}

/** A form, its submit button, and "Copy as" for the request it would send. */
export function PlaygroundForm(props: {
  kind: PlaygroundKind;
  body: Record<string, unknown>;
  busy: boolean;
  onSend: () => void;
  /** The answer (or error), shown between the form and "Copy as". */
  output: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <Card>
        <form
          class="form-grid"
          data-testid={`${props.kind}-form`}
          onSubmit={(e) => {
            e.preventDefault();
            props.onSend();
          }}
        >
          {props.children}
          <div class="form-actions">
            <button type="submit" disabled={props.busy} data-testid={`${props.kind}-submit`}>
              {props.busy ? 'Sending…' : 'Send'}
            </button>
          </div>
        </form>
      </Card>
      {props.output}
      <CopyAs kind={props.kind} body={props.body} />
    </>
  );
}

const SEARCH_TYPES = ['auto', 'fast', 'instant', 'deep-lite', 'deep', 'deep-reasoning'].map((t) => [t, t] as const);
const CATEGORIES = [['', 'any'], ...['company', 'people', 'publication', 'news', 'personal site', 'financial report'].map((c) => [c, c] as const)] as const; // prettier-ignore

interface SearchAnswer {
  requestId: string;
  results: Result[];
  costDollars: { total: number };
  warnings?: { code: string; message: string }[];
}

/** `contents` of a search or the options of /contents, from three checkboxes. */
function contentOptions(text: boolean, highlights: boolean, summary: boolean): Record<string, boolean> {
  return { ...(text && { text: true }), ...(highlights && { highlights: true }), ...(summary && { summary: true }) };
}

export function SearchForm() {
  const [query, setQuery] = useState('');
  const [type, setType] = useState('auto');
  const [num, setNum] = useState('10');
  const [category, setCategory] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [text, setText] = useState(true);
  const [highlights, setHighlights] = useState(false);
  const [summary, setSummary] = useState(false);
  const ex = useExchange<SearchAnswer>('/search');
  const contents = contentOptions(text, highlights, summary);
  const body: Record<string, unknown> = {
    query,
    type,
    numResults: numberOf(num) ?? 10,
    ...(category && { category }),
    ...(linesOf(include, true).length > 0 && { includeDomains: linesOf(include, true) }),
    ...(linesOf(exclude, true).length > 0 && { excludeDomains: linesOf(exclude, true) }),
    ...(start && { startPublishedDate: start }),
    ...(end && { endPublishedDate: end }),
    ...(Object.keys(contents).length > 0 && { contents }),
  };
  return (
    <>
      <PlaygroundForm
        kind="search"
        body={body}
        busy={ex.busy}
        onSend={() => void ex.run(body)}
        output={
          <Answered ex={ex} kind="search" title={(o) => `${o.results.length} results`}>
            {(o) => (
              <>
                <Warnings warnings={o.warnings} />
                <ResultList results={o.results} />
              </>
            )}
          </Answered>
        }
      >
        <TextField label="Query" value={query} onValue={setQuery} required type="search" testid="search-query" wide />
        <SelectField label="Type" value={type} onValue={setType} options={SEARCH_TYPES} testid="search-type" />
        <TextField label="Results" type="number" min={1} max={100} value={num} onValue={setNum} testid="search-num" />
        <SelectField label="Category" value={category} onValue={setCategory} options={CATEGORIES} />
        <TextArea
          label="Include domains"
          value={include}
          onValue={setInclude}
          rows={2}
          hint="One a line or comma-separated: example.com, docs.example.com/guide"
        />
        <TextArea label="Exclude domains" value={exclude} onValue={setExclude} rows={2} />
        <TextField label="Published after" type="date" value={start} onValue={setStart} />
        <TextField label="Published before" type="date" value={end} onValue={setEnd} />
        <FieldGroup legend="Contents of each result">
          <CheckField label="Text" checked={text} onChecked={setText} testid="search-text" />
          <CheckField label="Highlights" checked={highlights} onChecked={setHighlights} />
          <CheckField label="Summary" checked={summary} onChecked={setSummary} hint="Needs a model." />
        </FieldGroup>
      </PlaygroundForm>
    </>
  );
}

function Warnings(props: { warnings?: { code: string; message: string }[] }) {
  if (!props.warnings?.length) return null;
  return (
    <ul class="warnings">
      {props.warnings.map((w) => (
        <li key={w.code}>
          <code>{w.code}</code> {w.message}
        </li>
      ))}
    </ul>
  );
}

interface ContentsAnswer {
  requestId: string;
  results: Result[];
  statuses: { id: string; status: string; source?: string; error?: { tag: string } | null; message?: string }[];
  costDollars: { total: number };
}

const FRESHNESS = [
  ['', 'default (cache, then the live page)'],
  ['-1', 'cache only'],
  ['0', 'always fetch the live page'],
] as const;

export function ContentsForm() {
  const [urls, setUrls] = useState('');
  const [text, setText] = useState(true);
  const [highlights, setHighlights] = useState(false);
  const [summary, setSummary] = useState(false);
  const [maxAge, setMaxAge] = useState('');
  const ex = useExchange<ContentsAnswer>('/contents');
  const body: Record<string, unknown> = {
    urls: linesOf(urls),
    ...contentOptions(text, highlights, summary),
    ...(maxAge !== '' && { maxAgeHours: Number(maxAge) }),
  };
  return (
    <>
      <PlaygroundForm
        kind="contents"
        body={body}
        busy={ex.busy}
        onSend={() => void ex.run(body)}
        output={
          <Answered ex={ex} kind="contents" title={(o) => `${o.results.length} pages`}>
            {(o) => (
              <>
                <Statuses statuses={o.statuses} />
                <ResultList results={o.results} />
              </>
            )}
          </Answered>
        }
      >
        <TextArea
          label="URLs"
          value={urls}
          onValue={setUrls}
          required
          hint="One a line, at most 100."
          testid="contents-urls"
        />
        <SelectField label="Freshness" value={maxAge} onValue={setMaxAge} options={FRESHNESS} />
        <FieldGroup legend="What to return">
          <CheckField label="Text" checked={text} onChecked={setText} />
          <CheckField label="Highlights" checked={highlights} onChecked={setHighlights} />
          <CheckField label="Summary" checked={summary} onChecked={setSummary} hint="Needs a model." />
        </FieldGroup>
      </PlaygroundForm>
    </>
  );
}

function Statuses(props: { statuses: ContentsAnswer['statuses'] }) {
  if (props.statuses.length === 0) return null;
  return (
    <table class="data compact" data-testid="contents-statuses">
      <caption class="offscreen">Status of each URL</caption>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Status</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {props.statuses.map((s, i) => (
          <tr key={i}>
            <th scope="row" class="break">
              {s.id}
            </th>
            <td>
              {s.status}
              {s.source && <span class="muted"> ({s.source})</span>}
            </td>
            <td>{[s.error?.tag, s.message].filter(Boolean).join(': ') || '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface ContextAnswer {
  requestId: string;
  response: string;
  resultsCount: number;
  outputTokens: number;
  costDollars: { total: number };
  sources?: { location: string; symbol: string | null; language: string }[];
}

export function ContextForm() {
  const [query, setQuery] = useState('');
  const [tokens, setTokens] = useState('dynamic');
  const ex = useExchange<ContextAnswer>('/context');
  const body = { query, tokensNum: tokens.trim() === 'dynamic' ? 'dynamic' : (numberOf(tokens) ?? tokens) };
  return (
    <>
      <PlaygroundForm
        kind="context"
        body={body}
        busy={ex.busy}
        onSend={() => void ex.run(body)}
        output={
          <Answered
            ex={ex}
            kind="context"
            title={(o) => `${o.resultsCount} snippets`}
            extra={(o) => [['Tokens', o.outputTokens]]}
          >
            {(o) => (
              <>
                {o.sources && o.sources.length > 0 && (
                  <ul class="sources">
                    {o.sources.map((s, i) => (
                      <li key={i}>
                        <code>{s.location}</code> {s.symbol && <span>{s.symbol}</span>}{' '}
                        <span class="muted">({s.language})</span>
                      </li>
                    ))}
                  </ul>
                )}
                <pre class="page-text">{o.response}</pre>
              </>
            )}
          </Answered>
        }
      >
        <TextField label="Question" value={query} onValue={setQuery} required testid="context-query" wide />
        <TextField
          label="Tokens"
          value={tokens}
          onValue={setTokens}
          hint='"dynamic", or 50 to 100000.'
          testid="context-tokens"
        />
      </PlaygroundForm>
    </>
  );
}
