import type { Signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { FieldKind, FieldShape } from '../api/capabilities.ts';
import { isNonFinite } from '../api/non-finite-numbers.ts';
import { NonFiniteChoice } from './non-finite-choice.tsx';

/** One row of the builder: `field operator value`, as one member of the filter's `_and`. */
export type Condition = { field: string; operator: string; value: string };

const OPERATORS: Record<string, string> = {
  _eq: 'equals',
  _neq: 'does not equal',
  _lt: 'less than',
  _lte: 'at most',
  _gt: 'greater than',
  _gte: 'at least',
  _contains: 'contains',
  _icontains: 'contains (any case)',
  _starts_with: 'starts with',
  _null: 'is empty',
  _nnull: 'is not empty',
};

const BY_KIND: Record<FieldKind, string[]> = {
  text: ['_icontains', '_contains', '_eq', '_neq', '_starts_with', '_null', '_nnull'],
  enum: ['_eq', '_neq', '_null', '_nnull'],
  uuid: ['_eq', '_neq', '_null', '_nnull'],
  number: ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_null', '_nnull'],
  integer: ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_null', '_nnull'],
  datetime: ['_lt', '_lte', '_gt', '_gte', '_eq', '_null', '_nnull'],
  'zoned-datetime': ['_lt', '_lte', '_gt', '_gte', '_eq', '_null', '_nnull'],
  time: ['_lt', '_lte', '_gt', '_gte', '_eq', '_null', '_nnull'],
  date: ['_lt', '_lte', '_gt', '_gte', '_eq', '_null', '_nnull'],
  boolean: ['_eq', '_null', '_nnull'],
  json: ['_null', '_nnull'],
};

const VALUELESS = new Set(['_null', '_nnull']);

/**
 * The value a condition on `field` starts with. A list of choices starts on its first: a list showing no
 * choice yet filtering on one (a boolean's '' was sent as false) would filter on what nobody chose.
 */
function initialValue(field: FieldShape): string {
  if (field.kind === 'boolean') return 'true';
  if (field.kind === 'enum') return field.choices[0] ?? '';
  return '';
}

/** The `filter` query parameter the conditions make, or undefined when there are none. */
export function filterOf(conditions: Condition[], fields: FieldShape[]): string | undefined {
  const members = conditions.flatMap((condition) => {
    const field = fields.find((candidate) => candidate.name === condition.field);
    if (!field) return [];
    const value = VALUELESS.has(condition.operator) ? true : typed(field.kind, condition.value);
    return [{ [field.name]: { [condition.operator]: value } }];
  });
  if (members.length === 0) return undefined;
  return JSON.stringify(members.length === 1 ? members[0] : { _and: members });
}

function typed(kind: FieldKind, text: string): unknown {
  if (kind === 'boolean') return text === 'true';
  if ((kind === 'number' || kind === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) {
    return Number(text);
  }
  return text;
}

/** Rows of field / operator / value; "Apply" hands the conditions over, so typing does not refetch. */
export function FilterBuilder(props: {
  fields: FieldShape[];
  draft: Signal<Condition[]>;
  onApply: (conditions: Condition[]) => void;
}) {
  const { fields, draft } = props;
  const form = useRef<HTMLFormElement>(null);
  /** Where focus goes once the conditions have rendered: a keyboard user goes on from the row they changed. */
  const focusNext = useRef<'added' | 'removed' | null>(null);
  useEffect(() => {
    if (focusNext.current === 'added')
      form.current?.querySelector<HTMLElement>('fieldset:last-of-type select')?.focus();
    if (focusNext.current === 'removed') form.current?.querySelector<HTMLElement>('button.add')?.focus();
    focusNext.current = null;
  });
  const filterable = fields.filter((field) => field.kind !== 'json');
  const change = (index: number, patch: Partial<Condition>) => {
    draft.value = draft.value.map((condition, at) => (at === index ? { ...condition, ...patch } : condition));
  };
  const add = () => {
    const first = filterable[0];
    if (!first) return;
    draft.value = [
      ...draft.value,
      { field: first.name, operator: BY_KIND[first.kind][0]!, value: initialValue(first) },
    ];
    focusNext.current = 'added';
  };
  return (
    <form
      ref={form}
      class="filters"
      aria-label="Filter"
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply(draft.value);
      }}
    >
      {draft.value.map((condition, index) => {
        const field = filterable.find((candidate) => candidate.name === condition.field) ?? filterable[0]!;
        const operators = BY_KIND[field.kind];
        return (
          <fieldset key={index} class="condition">
            <legend class="visually-hidden">Condition {index + 1}</legend>
            <select
              aria-label={`Field of condition ${index + 1}`}
              value={condition.field}
              onChange={(event) => {
                const next = filterable.find((candidate) => candidate.name === event.currentTarget.value)!;
                // The value typed for another field may not fit this one's input (text in a number's),
                // where it would be sent without being seen.
                change(index, {
                  field: next.name,
                  operator: BY_KIND[next.kind][0]!,
                  value: initialValue(next),
                });
              }}
            >
              {filterable.map((candidate) => (
                <option key={candidate.name} value={candidate.name}>
                  {candidate.name}
                </option>
              ))}
            </select>
            <select
              aria-label={`Operator of condition ${index + 1}`}
              value={condition.operator}
              onChange={(event) => change(index, { operator: event.currentTarget.value })}
            >
              {operators.map((operator) => (
                <option key={operator} value={operator}>
                  {OPERATORS[operator]}
                </option>
              ))}
            </select>
            {!VALUELESS.has(condition.operator) &&
              (field.kind === 'boolean' || field.kind === 'enum' ? (
                <select
                  aria-label={`Value of condition ${index + 1}`}
                  value={condition.value}
                  onChange={(event) => change(index, { value: event.currentTarget.value })}
                >
                  {(field.kind === 'boolean' ? ['true', 'false'] : field.choices).map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
              ) : field.kind === 'number' || field.kind === 'integer' ? (
                <>
                  <input
                    aria-label={`Value of condition ${index + 1}`}
                    type="number"
                    step="any"
                    disabled={isNonFinite(condition.value)}
                    value={isNonFinite(condition.value) ? '' : condition.value}
                    onInput={(event) => change(index, { value: event.currentTarget.value })}
                  />
                  {/* A float's or decimal's NaN and ±Infinity, which filters take as these strings. */}
                  {field.kind === 'number' && field.acceptsText && (
                    <NonFiniteChoice
                      label={`Condition ${index + 1}: number or special value`}
                      text={condition.value}
                      loadedText=""
                      disabled={false}
                      onChange={(value) => change(index, { value })}
                    />
                  )}
                </>
              ) : (
                <input
                  aria-label={`Value of condition ${index + 1}`}
                  type="text"
                  value={condition.value}
                  onInput={(event) => change(index, { value: event.currentTarget.value })}
                />
              ))}
            <button
              type="button"
              aria-label={`Remove condition ${index + 1}`}
              onClick={() => {
                draft.value = draft.value.filter((_, at) => at !== index);
                focusNext.current = 'removed';
              }}
            >
              ×
            </button>
          </fieldset>
        );
      })}
      <button type="button" class="add" onClick={add} disabled={filterable.length === 0}>
        Add condition
      </button>
      <button type="submit">Apply filter</button>
    </form>
  );
}
