/**
 * Labelled form controls: each control sits inside its `<label>` (so it is named), with an optional
 * hint tied to it by `aria-describedby`. Values are strings; the forms parse them when they submit.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface Common {
  label: string;
  hint?: string;
  testid?: string;
  required?: boolean;
  disabled?: boolean;
}

function Hint(props: { id: string; hint?: string }) {
  return props.hint ? (
    <span class="hint" id={props.id}>
      {props.hint}
    </span>
  ) : null;
}

type InputType = 'text' | 'url' | 'password' | 'date' | 'number' | 'search';

/** A one-line input. */
export function TextField(
  props: Common & {
    value: string;
    onValue: (value: string) => void;
    type?: InputType;
    placeholder?: string;
    min?: number;
    max?: number;
    step?: number | 'any';
    autocomplete?: string;
    /** Take the whole row of a form grid. */
    wide?: boolean;
  },
) {
  const hintId = useId();
  return (
    <label class={props.wide ? 'field wide' : 'field'}>
      <span class="label">{props.label}</span>
      <input
        // Preact's types tie some attributes to each input type; these fields use the common ones only
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
        placeholder={props.placeholder}
        required={props.required}
        disabled={props.disabled}
        min={props.min}
        max={props.max}
        step={props.step}
        autocomplete={props.autocomplete ?? 'off'}
        aria-describedby={props.hint ? hintId : undefined}
        data-testid={props.testid}
      />
      <Hint id={hintId} hint={props.hint} />
    </label>
  );
}

/** A text area (lists of URLs, domains, patterns: one a line). */
export function TextArea(props: Common & { value: string; onValue: (value: string) => void; rows?: number }) {
  const hintId = useId();
  return (
    <label class="field wide">
      <span class="label">{props.label}</span>
      <textarea
        value={props.value}
        rows={props.rows ?? 3}
        onInput={(e) => props.onValue(e.currentTarget.value)}
        required={props.required}
        disabled={props.disabled}
        aria-describedby={props.hint ? hintId : undefined}
        data-testid={props.testid}
      />
      <Hint id={hintId} hint={props.hint} />
    </label>
  );
}

/** A choice among options, given as `[value, label]` pairs. */
export function SelectField(
  props: Common & { value: string; onValue: (value: string) => void; options: readonly (readonly [string, string])[] },
) {
  const hintId = useId();
  return (
    <label class="field">
      <span class="label">{props.label}</span>
      <select
        value={props.value}
        onChange={(e) => props.onValue(e.currentTarget.value)}
        required={props.required}
        disabled={props.disabled}
        aria-describedby={props.hint ? hintId : undefined}
        data-testid={props.testid}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <Hint id={hintId} hint={props.hint} />
    </label>
  );
}

/** A checkbox with its label to the right. */
export function CheckField(props: Common & { checked: boolean; onChecked: (checked: boolean) => void }) {
  const hintId = useId();
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChecked(e.currentTarget.checked)}
        disabled={props.disabled}
        aria-describedby={props.hint ? hintId : undefined}
        data-testid={props.testid}
      />
      <span>{props.label}</span>
      <Hint id={hintId} hint={props.hint} />
    </label>
  );
}

/** A group of controls under one legend (checkbox sets, option groups). */
export function FieldGroup(props: { legend: string; children: ComponentChildren; testid?: string }) {
  return (
    <fieldset class="group" data-testid={props.testid}>
      <legend>{props.legend}</legend>
      <div class="group-body">{props.children}</div>
    </fieldset>
  );
}

/** Lines of a text area as a list, trimmed, blanks dropped; with `commas`, commas separate too. */
export function linesOf(text: string, commas = false): string[] {
  return text
    .split(commas ? /[\n,]/ : /\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A number typed in a field, or undefined when the field is empty. */
export function numberOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}
