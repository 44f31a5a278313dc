import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001SystemTables } from './0001-system-tables.ts';
import { Migration0002Permissions } from './0002-permissions.ts';
import { Migration0003SealedSuccessor } from './0003-sealed-successor.ts';
import { Migration0004ChangeNotifications } from './0004-change-notifications.ts';
import { Migration0005ItemEvents } from './0005-item-events.ts';
import { Migration0006Activity } from './0006-activity.ts';
import { Migration0007Files } from './0007-files.ts';
import { Migration0008StorageObjects } from './0008-storage-objects.ts';
import { Migration0009UnfinishedUploads } from './0009-unfinished-uploads.ts';
import { Migration0010EmailsInNfc } from './0010-e-mails-in-nfc.ts';

/**
 * Every system migration, in order. Listed by hand because MikroORM's file discovery needs Node 22 APIs.
 * Names are stored in `datagate_migrations`: never rename one that has shipped.
 */
export const systemMigrations: MigrationObject[] = [
  { name: '0001-system-tables', class: Migration0001SystemTables },
  { name: '0002-permissions', class: Migration0002Permissions },
  { name: '0003-sealed-successor', class: Migration0003SealedSuccessor },
  { name: '0004-change-notifications', class: Migration0004ChangeNotifications },
  { name: '0005-item-events', class: Migration0005ItemEvents },
  { name: '0006-activity', class: Migration0006Activity },
  { name: '0007-files', class: Migration0007Files },
  { name: '0008-storage-objects', class: Migration0008StorageObjects },
  { name: '0009-unfinished-uploads', class: Migration0009UnfinishedUploads },
  { name: '0010-e-mails-in-nfc', class: Migration0010EmailsInNfc },
];
