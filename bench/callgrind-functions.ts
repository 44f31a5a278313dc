import { execFileSync } from 'node:child_process';

/**
 * Instructions by function in a callgrind dump, as `callgrind_annotate` names them (`???:` and the object file
 * left off; V8's generated code is a bare address, `0x…`, which bench/callgrind-js.ts names): each function's
 * own count, or with `inclusive` what it called as well.
 */
export function instructionsByFunction(
  dump: string,
  { inclusive }: { inclusive: boolean },
): Map<string, number> {
  const annotated = execFileSync(
    'callgrind_annotate',
    [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', dump],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const counts = new Map<string, number>();
  for (const line of annotated.split('\n')) {
    const row = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/.exec(line);
    if (!row || row[2]!.includes('PROGRAM TOTALS')) continue;
    const name = row[2]!
      .split(' [')[0]!
      .trim()
      .replace(/^\?\?\?:/, '');
    counts.set(name, (counts.get(name) ?? 0) + Number(row[1]!.replaceAll(',', '')));
  }
  return counts;
}
