import type { VNode } from 'preact';
import type { Capabilities } from './api/capabilities.ts';
import { CollectionsScreen } from './screens/collections-screen.tsx';
import { ItemEditorScreen } from './screens/item-editor-screen.tsx';
import { ItemTableScreen } from './screens/item-table-screen.tsx';

/** A screen at a path pattern; `when` hides it from callers it is not for (the API would refuse them anyway). */
export type Route = {
  pattern: string;
  title: string;
  /** The label of its link in the top bar, for screens that have one. */
  nav?: string;
  render(params: Record<string, string>): VNode;
  when?(capabilities: Capabilities): boolean;
};

/** Every screen of the studio; the first match wins. */
export const ROUTES: Route[] = [
  { pattern: '/', title: 'Collections', nav: 'Collections', render: () => <CollectionsScreen /> },
  {
    pattern: '/collections/:collection',
    title: 'Items',
    render: (params) => <ItemTableScreen collection={params.collection!} />,
  },
  {
    pattern: '/collections/:collection/+',
    title: 'New item',
    render: (params) => <ItemEditorScreen collection={params.collection!} itemKey={null} />,
  },
  {
    pattern: '/collections/:collection/:key',
    title: 'Item',
    render: (params) => <ItemEditorScreen collection={params.collection!} itemKey={params.key!} />,
  },
];
