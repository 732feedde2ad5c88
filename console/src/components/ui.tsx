/** The console's building blocks: page header, cards, notes, badges, pagers and buttons. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../lib/api';
import { when } from '../lib/format';
import type { Paged } from '../lib/hooks';

let navigated = false;

/** Marks that the reader moved to another page: its heading then takes the focus (not on first load). */
export function markNavigation(): void {
  navigated = true;
}

/** The page's one `h1`, focused after a navigation so that a screen reader announces the new page. */
export function PageHeader(props: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (navigated) heading.current?.focus();
  }, [props.title]);
  return (
    <div class="page-header">
      <h1 tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children && <p class="lead">{props.children}</p>}
    </div>
  );
}

/** A titled section; `headingLevel` keeps headings in order inside nested sections. */
export function Card(props: {
  title?: string;
  level?: 2 | 3;
  actions?: ComponentChildren;
  testid?: string;
  children: ComponentChildren;
}) {
  const Heading = props.level === 3 ? 'h3' : 'h2';
  return (
    <section class="card" data-testid={props.testid}>
      {(props.title || props.actions) && (
        <div class="card-head">
          {props.title && <Heading>{props.title}</Heading>}
          {props.actions && <div class="card-actions">{props.actions}</div>}
        </div>
      )}
      {props.children}
    </section>
  );
}

/** An error, said to assistive technology as it appears. */
export function ErrorNote(props: { error: unknown; testid?: string }) {
  if (!props.error) return null;
  return (
    <p class="note error" role="alert" data-testid={props.testid ?? 'error'}>
      {messageOf(props.error)}
    </p>
  );
}

/** A short success or information line, announced politely. */
export function Notice(props: { children: ComponentChildren; testid?: string }) {
  return (
    <p class="note ok" role="status" data-testid={props.testid}>
      {props.children}
    </p>
  );
}

export function Loading(props: { what?: string }) {
  return (
    <p class="muted" role="status">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

const TONES: Record<string, string> = {
  ok: 'good',
  completed: 'good',
  delivered: 'good',
  active: 'good',
  failed: 'bad',
  broken: 'bad',
  revoked: 'bad',
  blocked: 'bad',
  interrupted: 'bad',
  running: 'info',
  queued: 'info',
  pending: 'info',
  unverified: 'warn',
  paused: 'warn',
  cancelled: 'warn',
  note: 'warn',
};

/** A status word on a tinted background (the word carries the meaning; the tint only helps). */
export function Badge(props: { status: string; testid?: string }) {
  return (
    <span class={`badge ${TONES[props.status] ?? 'plain'}`} data-testid={props.testid}>
      {props.status}
    </span>
  );
}

/** "Next page" (and back to the first) for a cursor-paged list. */
export function Pager(props: { of: Paged<unknown>; label: string }) {
  const { data, first, next, restart } = props.of;
  if (!data || (!data.hasMore && first)) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      {!first && (
        <button type="button" class="secondary" onClick={restart}>
          First page
        </button>
      )}
      {data.hasMore && (
        <button type="button" class="secondary" onClick={next} data-testid="next-page">
          Next page
        </button>
      )}
    </nav>
  );
}

/** Copies `text` to the clipboard, saying so; falls back to a selection copy where the API is missing. */
export function CopyButton(props: { text: string; label?: string; testid?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(props.text);
      else copyBySelection(props.text);
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary small" onClick={() => void copy()} data-testid={props.testid}>
        {props.label ?? 'Copy'}
      </button>
      <span class="muted small" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text' : ''}
      </span>
    </span>
  );
}

function copyBySelection(text: string): void {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

/** A destructive action in two steps: the button, then "Confirm" or "Cancel" in its place. */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  testid?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  // the first button is gone once clicked: the focus moves to the one that replaces it
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger small" onClick={() => setAsking(true)} data-testid={props.testid}>
        {props.label}
      </button>
    );
  }
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span class="confirm" role="group" aria-label={props.confirmLabel}>
      <button
        type="button"
        class="danger small"
        ref={confirmButton}
        disabled={busy}
        onClick={() => void confirm()}
        data-testid={props.testid ? `${props.testid}-confirm` : undefined}
      >
        {props.confirmLabel}
      </button>
      <button type="button" class="secondary small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A `<time>` with the readable form and the ISO value. */
export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  return <time dateTime={props.iso}>{when(props.iso)}</time>;
}

/** A wide table's box: it scrolls sideways on a narrow screen, and takes the focus so keys can scroll it. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="group" aria-label={props.label}>
      {props.children}
    </div>
  );
}
