/** A user as the admin endpoints show it (docs/api.md §7): never the password, the token masked. */
export type User = {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string | null;
  status: 'active' | 'suspended';
};

export type Role = { id: string; name: string; description: string | null; admin_access: boolean };

export const ACTIONS = ['create', 'read', 'update', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

/** One grant of an action on a collection to a role, or to the public when `role` is null (docs/api.md §6). */
export type Permission = {
  id: string;
  role: string | null;
  collection: string;
  action: Action;
  permissions: Record<string, unknown> | null;
  validation: Record<string, unknown> | null;
  presets: Record<string, unknown> | null;
  fields: string[] | null;
};

/** A table or view as `GET /collections` shows it to admins, with the names of its fields. */
export type Collection = {
  collection: string;
  read_only: boolean;
  fields: { field: string }[];
};

/** `public` in a studio path stands for the public role: callers without a token, users without a role. */
export const PUBLIC_ROLE = 'public';
