// Runs one-shot commands in a row in this process, through the CLI's own command functions but without
// the exit src/cli.ts adds after them: the process ends only if nothing they opened is left open.
// Usage: node --import tsx tests/faults/one-shot-commands.ts <rounds>
import { randomBytes } from 'node:crypto';
import { bootstrap, createRole, listUsers, setStaticToken } from '../../src/cli-commands.ts';

const rounds = Number(process.argv[2] ?? 1);
await bootstrap();
for (let round = 0; round < rounds; round++) {
  await setStaticToken({ email: process.env.ADMIN_EMAIL ?? '', token: randomBytes(32).toString('hex') });
  await createRole({ name: `role-${round}-${randomBytes(4).toString('hex')}`, admin: false });
  await listUsers({ json: true });
}
console.log(`done ${rounds}`);
