const LONGEST = 80;

/** A value as a table cell shows it: as the API wrote it (the seed's formats), shortened, null as a dash. */
export function CellValue(props: { value: unknown }) {
  const { value } = props;
  if (value === null || value === undefined) {
    return (
      <span class="muted">
        —<span class="visually-hidden">empty</span>
      </span>
    );
  }
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return (
    <span title={text.length > LONGEST ? text : undefined}>
      {text.length > LONGEST ? `${text.slice(0, LONGEST)}…` : text}
    </span>
  );
}
