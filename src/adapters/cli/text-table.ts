/**
 * Rows as columns aligned with spaces under an upper-case header, the way `ps` or `kubectl get` print:
 * readable at a terminal, and split on runs of spaces by `awk` (no cell holds one; see `cell`).
 */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const lines = [header.map((name) => name.toUpperCase()), ...rows.map((row) => row.map(cell))];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column]?.length ?? 0)));
  return lines
    .map((line) =>
      line
        .map((value, column) => value.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * An empty cell would shift the columns after it for `awk`; whitespace inside one would split it. A stored
 * name may hold any character (a role named over the API): a control character is shown escaped
 * (`\u001b`), so that it cannot drive the operator's terminal.
 */
function cell(value: string): string {
  if (value === '') return '-';
  return value
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, (control) => `\\u${control.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
