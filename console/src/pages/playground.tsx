/**
 * Playground: search, contents, code context and a streamed answer, as tabs (links: `#/playground/answer`),
 * each tab shown to a key whose scopes allow its route. Every answer shows the latency the page measured
 * and its cost; the form's request is ready to copy as curl, exa-js and an MCP tool call.
 */
import { hrefOf } from '../lib/router';
import { hasScope, type Scope } from '../lib/session';
import { PageHeader } from '../components/ui';
import type { PageProps } from '../pages';
import { ContentsForm, ContextForm, SearchForm } from './playground-forms';
import { AnswerForm } from './playground-answer';

const TABS = [
  { id: 'search', title: 'Search', scope: 'search', form: SearchForm },
  { id: 'contents', title: 'Contents', scope: 'contents', form: ContentsForm },
  { id: 'context', title: 'Code context', scope: 'context', form: ContextForm },
  { id: 'answer', title: 'Answer', scope: 'search', form: AnswerForm },
] as const satisfies readonly { id: string; title: string; scope: Scope; form: unknown }[];

export function PlaygroundPage({ session, param }: PageProps) {
  const tabs = TABS.filter((t) => hasScope(session.key.scopes, t.scope));
  const active = tabs.find((t) => t.id === param) ?? tabs[0];
  if (!active) return null;
  const Form = active.form;
  return (
    <>
      <PageHeader title="Playground">Try a request, see what it costs and how long it takes, copy it.</PageHeader>
      <nav class="tabs" aria-label="Playground requests">
        {tabs.map((t) => (
          <a
            key={t.id}
            href={hrefOf('playground', t.id)}
            aria-current={t.id === active.id ? 'page' : undefined}
            data-testid={`tab-${t.id}`}
          >
            {t.title}
          </a>
        ))}
      </nav>
      <Form key={active.id} />
    </>
  );
}
