import { isNonFinite, NON_FINITE_NUMBERS, textOfChoice } from '../api/non-finite-numbers.ts';

/**
 * Beside a float's or decimal's number input (in the editor, or as a filter's value), the choice between a
 * number and the values no number input can hold (`NaN`, `Infinity`, `-Infinity`, which the API takes as
 * these strings): a select rather than text to type, so that only the spellings the API accepts are sent.
 */
export function NonFiniteChoice(props: {
  /** Its accessible name, which says what it belongs to. */
  label: string;
  /** What the number input's draft holds: a number's text, or one of the non-finite values. */
  text: string;
  /** The value loaded with the item, which "a number" goes back to ('' when there is none). */
  loadedText: string;
  disabled: boolean;
  onChange: (text: string) => void;
}) {
  const { text, loadedText } = props;
  return (
    <select
      aria-label={props.label}
      disabled={props.disabled}
      value={isNonFinite(text) ? text : 'number'}
      onChange={(event) => {
        const choice = event.currentTarget.value;
        props.onChange(textOfChoice(isNonFinite(choice) ? choice : 'number', loadedText));
      }}
    >
      <option value="number">a number</option>
      {NON_FINITE_NUMBERS.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </select>
  );
}
