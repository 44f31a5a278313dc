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

/** An empty cell would shift the columns after it for `awk`; whitespace inside one would split it. */
function cell(value: string): string {
  return value === '' ? '-' : value.replace(/\s+/g, ' ');
}
