import { signal } from '@preact/signals';

/** Where the studio lives: every screen is a path under it, so a reload or a shared link lands on it. */
export const BASE = '/studio';

/** The current path below BASE, always starting with `/`. */
export const path = signal(current());

function current(): string {
  const below = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return below === '' ? '/' : below;
}

export function navigate(to: string): void {
  if (to === path.value) return;
  history.pushState(null, '', BASE + to);
  path.value = to;
}

addEventListener('popstate', () => {
  path.value = current();
});

/**
 * Matches `/collections/:name` style patterns; parameters come back decoded. A last segment `*` takes the
 * rest of the path, as a path of its own (`/` when empty) still encoded, to be matched again.
 */
export function match(pattern: string, actual: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = actual.split('/');
  const rest = want.at(-1) === '*';
  if (rest ? got.length < want.length - 1 : want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index++) {
    const part = want[index]!;
    if (rest && index === want.length - 1) {
      params['*'] = `/${got.slice(index).join('/')}`;
      break;
    }
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(got[index]!);
    else if (part !== got[index]) return null;
  }
  return params;
}

/** A link that moves inside the studio without reloading the page. */
export function onLink(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
