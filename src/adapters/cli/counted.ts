/**
 * A count and its noun as a summary line says it, the count grouped by thousands: `1 row`, `0 rows`,
 * `1,000 rows`. Every noun the command line counts takes an -s.
 */
export function counted(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? noun : `${noun}s`}`;
}
