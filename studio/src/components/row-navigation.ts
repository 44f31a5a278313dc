/**
 * ArrowDown / ArrowUp on a row's link moves to the link of the next / previous row, so a keyboard reader
 * goes down the rows without tabbing through each one's cells. Anything else keeps its default.
 */
export function moveBetweenRows(event: KeyboardEvent): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const row = (event.target as Element).closest('a')?.closest('tr');
  const sibling = event.key === 'ArrowDown' ? row?.nextElementSibling : row?.previousElementSibling;
  const link = sibling?.querySelector('a');
  if (!link) return;
  event.preventDefault();
  link.focus();
}
