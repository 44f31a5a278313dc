import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Capabilities } from './api/capabilities.ts';
import type { ApiClient } from './api/client.ts';

/**
 * Whose eyes the screens look through: the API client they call and what it may do. The app provides the
 * logged-in user's; a preview provides another (a role's, read-only), and the same screens show that view.
 */
export type StudioView = { api: ApiClient; capabilities: Capabilities; readOnly: boolean };

export const StudioContext = createContext<StudioView | null>(null);

export function useStudio(): StudioView {
  const view = useContext(StudioContext);
  if (!view) throw new Error('A studio screen was rendered outside the app');
  return view;
}
