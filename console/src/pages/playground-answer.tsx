/** The playground's answer: POST /answer with `stream: true`, its frames shown as they arrive. */
import { useState } from 'preact/hooks';
import { readEventStream, send } from '../lib/api';
import { dollars } from '../lib/format';
import { CheckField, TextField } from '../components/fields';
import { ExternalLink } from '../components/external-link';
import { Card, ErrorNote, Notice } from '../components/ui';
import { PlaygroundForm } from './playground-forms';
import { Measures } from './playground-results';

interface Citation {
  url: string;
  title: string;
}

interface AnswerState {
  text: string;
  citations: Citation[];
  frames: number;
  firstFrameMs: number | null;
  latencyMs: number;
  cost: number | undefined;
  requestId: string | undefined;
  done: boolean;
}

/** One `data:` frame of a streamed /answer (src/schemas/answer.schema.ts), or the stream's late error. */
interface AnswerFrame {
  choices?: { delta?: { content?: string } }[];
  citations?: Citation[];
  requestId?: string;
  costDollars?: { total: number };
  error?: { tag: string; message: string };
}

export function AnswerForm() {
  const [query, setQuery] = useState('');
  const [withText, setWithText] = useState(false);
  const [state, setState] = useState<AnswerState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const body = { query, stream: true, ...(withText && { text: true }) };

  const run = async () => {
    setBusy(true);
    setError(null);
    const started = performance.now();
    let current: AnswerState = { text: '', citations: [], frames: 0, firstFrameMs: null, latencyMs: 0, cost: undefined, requestId: undefined, done: false }; // prettier-ignore
    setState(current);
    try {
      const response = await send('/answer', { body, accept: 'text/event-stream' });
      await readEventStream(response, (event) => {
        if (event.data === '[DONE]') return;
        const frame = JSON.parse(event.data) as AnswerFrame;
        if (frame.error) setError(new Error(`${frame.error.message} (${frame.error.tag})`));
        current = {
          ...current,
          frames: current.frames + 1,
          firstFrameMs: current.firstFrameMs ?? performance.now() - started,
          text: current.text + (frame.choices?.[0]?.delta?.content ?? ''),
          citations: frame.citations ?? current.citations,
          cost: frame.costDollars?.total ?? current.cost,
          requestId: frame.requestId ?? current.requestId,
        };
        setState(current);
      });
      setState({ ...current, done: true, latencyMs: performance.now() - started });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PlaygroundForm
        kind="answer"
        body={body}
        busy={busy}
        onSend={() => void run()}
        output={
          <>
            <ErrorNote error={error} />
            {state && <AnswerView state={state} />}
          </>
        }
      >
        <TextField label="Question" value={query} onValue={setQuery} required testid="answer-query" wide />
        <CheckField label="Give each citation its page text" checked={withText} onChecked={setWithText} />
      </PlaygroundForm>
    </>
  );
}

function AnswerView({ state }: { state: AnswerState }) {
  return (
    <Card title="Answer" testid="answer-results">
      <Measures
        latencyMs={state.latencyMs}
        cost={state.cost}
        requestId={state.requestId}
        extra={[
          ['First frame', state.firstFrameMs === null ? '—' : `${Math.round(state.firstFrameMs)} ms`],
          ['Frames', state.frames, 'answer-frames'],
        ]}
      />
      <div class="answer-text" data-testid="answer-text" aria-live="polite" aria-busy={!state.done}>
        {state.text || (state.done ? <span class="muted">(empty answer)</span> : <span class="muted">Waiting…</span>)}
      </div>
      {state.done && (
        <Notice testid="answer-done">
          Stream ended{state.cost !== undefined ? `; cost ${dollars(state.cost)}` : ''}.
        </Notice>
      )}
      {state.citations.length > 0 && (
        <>
          <h3>Citations</h3>
          <ol class="citations" data-testid="answer-citations">
            {state.citations.map((c, i) => (
              <li key={i}>
                <ExternalLink url={c.url}>{c.title || c.url}</ExternalLink>
              </li>
            ))}
          </ol>
        </>
      )}
    </Card>
  );
}
