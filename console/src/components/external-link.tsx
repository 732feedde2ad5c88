/**
 * The one way a URL from the web is shown: a link opening in a new tab, without the opener or the
 * referrer, when it is http(s); otherwise the text alone (a `javascript:` URL never becomes a link).
 */
import type { ComponentChildren } from 'preact';
import { safeHref } from '../lib/safe-url';

export function ExternalLink(props: { url: unknown; children?: ComponentChildren }) {
  const href = safeHref(props.url);
  const label = props.children ?? String(props.url ?? '');
  if (!href) return <span class="unlinked">{label}</span>;
  return (
    <a href={href} rel="noopener noreferrer" target="_blank">
      {label}
    </a>
  );
}
