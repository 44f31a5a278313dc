import type { BootstrapCommand } from './bootstrap.ts';

/**
 * The first admin's settings only ever create the first admin. Someone who sets them on a database that
 * already has one (a quick start ran before, a generated password was lost) expects to log in with them;
 * they hear why they cannot and what to do instead. Null when none is set.
 */
export function ignoredAdminSettings(command: BootstrapCommand): string | null {
  const set = [
    command.adminEmail !== undefined && 'ADMIN_EMAIL',
    command.adminPassword !== undefined && 'ADMIN_PASSWORD',
  ].filter((name) => name !== false);
  if (set.length === 0) return null;
  return (
    `${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} ignored: an admin already exists, and only the ` +
    'first admin is created from them. To set a password: datagate users password <email> ' +
    '(datagate users list shows the users)'
  );
}
