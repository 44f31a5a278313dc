import type { VNode } from 'preact';
import type { Capabilities } from './api/capabilities.ts';
import { match } from './router.ts';
import { CollectionsScreen } from './screens/collections-screen.tsx';
import { ItemEditorScreen } from './screens/item-editor-screen.tsx';
import { ItemTableScreen } from './screens/item-table-screen.tsx';
import { RolePreview } from './screens/role-preview.tsx';
import { RoleScreen } from './screens/role-screen.tsx';
import { RolesScreen } from './screens/roles-screen.tsx';
import { NewUserScreen, UserScreen } from './screens/user-screen.tsx';
import { UsersScreen } from './screens/users-screen.tsx';

/** A screen at a path pattern; `when` hides it from callers it is not for (the API would refuse them anyway). */
export type Route = {
  pattern: string;
  title: string;
  /** The label of its link in the top bar, for screens that have one. */
  nav?: string;
  render(params: Record<string, string>): VNode;
  when?(capabilities: Capabilities): boolean;
  /** A governance screen (users, roles, permissions): not shown inside a role preview, which only reads. */
  governance?: true;
};

/** Only admins have `/roles`, `/users` and `/permissions` in their OpenAPI document. */
const governs = (capabilities: Capabilities) => capabilities.governs;

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
  {
    pattern: '/users',
    title: 'Users',
    nav: 'Users',
    render: () => <UsersScreen />,
    when: governs,
    governance: true,
  },
  {
    pattern: '/users/new',
    title: 'New user',
    render: () => <NewUserScreen />,
    when: governs,
    governance: true,
  },
  {
    pattern: '/users/:id',
    title: 'User',
    render: (params) => <UserScreen id={params.id!} />,
    when: governs,
    governance: true,
  },
  {
    pattern: '/roles',
    title: 'Roles',
    nav: 'Roles',
    render: () => <RolesScreen />,
    when: governs,
    governance: true,
  },
  {
    pattern: '/roles/:id',
    title: 'Role',
    render: (params) => <RoleScreen id={params.id!} />,
    when: governs,
    governance: true,
  },
  {
    pattern: '/preview/:role/*',
    title: 'View as role',
    render: (params) => <RolePreview role={params.role!} path={params['*']!} screenAt={previewScreen} />,
    when: governs,
    governance: true,
  },
];

/** The screen a role preview shows at `path`: the studio's own, as far as the previewed role may use them. */
function previewScreen(path: string, capabilities: Capabilities): VNode | null {
  for (const route of ROUTES) {
    if (route.governance) continue;
    const params = match(route.pattern, path);
    if (params && (route.when?.(capabilities) ?? true)) return route.render(params);
  }
  return null;
}
