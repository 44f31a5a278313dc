import type { ComponentChildren } from 'preact';
import type { FieldShape } from '../api/capabilities.ts';
import type { Draft } from '../api/field-values.ts';
import { isNonFinite } from '../api/non-finite-numbers.ts';
import { NonFiniteChoice } from './non-finite-choice.tsx';

/**
 * Texts a date, time or number input can show; other values (`infinity`, µs) are edited as text, except a
 * float's or decimal's `NaN` and ±`Infinity`, which its choice beside the number input holds.
 */
const SHOWN_BY = {
  'datetime-local': /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?$/,
  date: /^\d{4}-\d\d-\d\d$/,
  time: /^\d\d:\d\d(:\d\d(\.\d{1,3})?)?$/,
  number: /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i,
} as const;

const INPUT_OF_KIND: Partial<Record<FieldShape['kind'], keyof typeof SHOWN_BY>> = {
  datetime: 'datetime-local',
  'zoned-datetime': 'datetime-local',
  date: 'date',
  time: 'time',
  number: 'number',
  integer: 'number',
};

const HINTS: Partial<Record<FieldShape['kind'], string>> = {
  datetime: 'date and time, no zone',
  'zoned-datetime': 'date and time in UTC',
  json: 'JSON',
  uuid: 'UUID',
};

/** The longest text an `<input>` holds; longer or unbounded text gets a textarea. */
const SHORT_TEXT = 255;

/**
 * One editable field: a labelled input of its kind, a way to set it to null when it may be null, and the
 * API's or the form's complaint about it underneath, tied to the input by `aria-describedby`.
 */
export function FieldInput(props: {
  field: FieldShape;
  id: string;
  draft: Draft;
  /** The loaded text decides the input's type, so typing never swaps the input under the caret. */
  loadedText: string;
  error: string | undefined;
  onChange: (draft: Draft) => void;
  note?: string;
  children?: ComponentChildren;
}) {
  const { field, id, draft, error, onChange } = props;
  const hint = HINTS[field.kind] ?? props.note;
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    disabled: draft.isNull,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div class="field">
      <div class="field-head">
        <label for={id} class="field-label">
          {field.name}
        </label>
        {hint && (
          <span id={`${id}-hint`} class="muted">
            {hint}
          </span>
        )}
      </div>
      <div class="field-control">
        {control(field, props.loadedText, draft, common, onChange)}
        {field.nullable && (
          <label class="null-toggle">
            <input
              type="checkbox"
              checked={draft.isNull}
              onChange={(event) => onChange({ text: draft.text, isNull: event.currentTarget.checked })}
            />
            null<span class="visually-hidden"> for {field.name}</span>
          </label>
        )}
      </div>
      {props.children}
      {error && (
        <p id={`${id}-error`} class="error field-error">
          {error}
        </p>
      )}
    </div>
  );
}

type Common = {
  id: string;
  disabled: boolean;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
};

function control(
  field: FieldShape,
  loadedText: string,
  draft: Draft,
  common: Common,
  onChange: (draft: Draft) => void,
) {
  const set = (text: string) => onChange({ text, isNull: false });
  const onInput = (event: { currentTarget: { value: string } }) => set(event.currentTarget.value);
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          {...common}
          type="checkbox"
          checked={draft.text === 'true'}
          onChange={(event) => set(String(event.currentTarget.checked))}
        />
      );
    case 'enum':
      return (
        <select {...common} value={draft.text} onChange={onInput}>
          {draft.text === '' && <option value="">— choose —</option>}
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      );
    case 'json':
      return (
        <textarea
          {...common}
          rows={Math.min(12, draft.text.split('\n').length + 1)}
          spellcheck={false}
          value={draft.text}
          onInput={onInput}
        />
      );
    case 'text':
      return field.maxLength !== null && field.maxLength <= SHORT_TEXT ? (
        <input {...common} type="text" maxLength={field.maxLength} value={draft.text} onInput={onInput} />
      ) : (
        <textarea {...common} rows={3} value={draft.text} onInput={onInput} />
      );
  }
  const type = INPUT_OF_KIND[field.kind];
  // A float or decimal, whose schema takes text besides numbers: its non-finite values among that text.
  const mayBeNonFinite = field.kind === 'number' && field.acceptsText;
  if (
    type &&
    (loadedText === '' || SHOWN_BY[type].test(loadedText) || (mayBeNonFinite && isNonFinite(loadedText)))
  ) {
    const fraction = /\.\d+$/.test(loadedText);
    const step =
      type === 'number'
        ? field.kind === 'integer'
          ? '1'
          : 'any'
        : type === 'date'
          ? undefined
          : fraction
            ? '0.001'
            : '1';
    // A number input cannot hold a non-finite value: it stays empty, and the choice beside it shows it.
    const nonFinite = mayBeNonFinite && isNonFinite(draft.text);
    const input = (
      <input
        {...common}
        disabled={common.disabled || nonFinite}
        type={type}
        step={step}
        value={nonFinite ? '' : draft.text}
        onInput={(event) => {
          const input = event.currentTarget;
          if (input.validity.badInput) onChange({ text: '', isNull: false, unreadable: true });
          else set(input.value);
        }}
      />
    );
    if (!mayBeNonFinite) return input;
    return (
      <>
        {input}
        <NonFiniteChoice
          label={`Number or special value of ${field.name}`}
          text={draft.text}
          loadedText={loadedText}
          disabled={common.disabled}
          onChange={set}
        />
      </>
    );
  }
  return (
    <input
      {...common}
      type="text"
      spellcheck={false}
      size={field.kind === 'uuid' ? 36 : undefined}
      value={draft.text}
      onInput={onInput}
    />
  );
}
