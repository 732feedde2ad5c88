/**
 * A `text/event-stream` parser (the WHATWG rules: lines end with LF, CRLF or CR; `data:` lines join
 * with LF; a blank line ends an event; `:` lines are comments), fed text as it arrives in any pieces.
 */

/** One event: its `id:` and `event:` when sent, and its data. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/** A parser that calls `onEvent` for each complete event in the text pushed to it. */
export function createSseParser(onEvent: (event: SseEvent) => void) {
  let data: string[] = [];
  let event = '';
  let id: string | null = null;
  let lastId: string | null = null;

  const dispatch = () => {
    if (data.length > 0) onEvent({ id: id ?? lastId, event: event || 'message', data: data.join('\n') });
    if (id !== null) lastId = id;
    data = [];
    event = '';
    id = null;
  };

  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };

  let partial = '';
  let afterCr = false;
  return {
    /** Adds text; complete lines are parsed, the rest waits for more (each character is read once). */
    push(text: string): void {
      let start = afterCr && text.startsWith('\n') ? 1 : 0;
      afterCr = false;
      for (let i = start; i < text.length; i++) {
        const c = text[i];
        if (c !== '\n' && c !== '\r') continue;
        line(partial + text.slice(start, i));
        partial = '';
        if (c === '\r') {
          // CRLF is one line end; a CR at the end of this piece may have its LF in the next one
          if (i + 1 < text.length) {
            if (text[i + 1] === '\n') i++;
          } else afterCr = true;
        }
        start = i + 1;
      }
      partial += text.slice(start);
    },
    /** The stream ended: an event without its closing blank line is dropped, as the standard says. */
    end(): void {
      partial = '';
      data = [];
    },
  };
}
