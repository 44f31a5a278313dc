/**
 * The server's response profile (docs/api.md §1), written into the page by the server: `plain` answers bare
 * JSON with counts in headers, `directus` wraps answers in `data` with counts in `meta`.
 */
export type Profile = 'plain' | 'directus';

export function pageProfile(): Profile {
  const value = document.querySelector('meta[name="datagate-profile"]')?.getAttribute('content');
  return value === 'directus' ? 'directus' : 'plain';
}
