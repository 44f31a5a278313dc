import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';

export type ServerInfo = { version: string; uptime: number; node: string };

export class GetServerInfoHandler implements Handler<void, ServerInfo> {
  constructor(
    private readonly version: string,
    private readonly startedAt: Date,
    private readonly clock: Clock,
  ) {}

  async execute(caller: Accountability): Promise<ServerInfo> {
    requireAdmin(caller);
    const uptime = Math.floor((this.clock.now().getTime() - this.startedAt.getTime()) / 1000);
    return { version: this.version, uptime, node: process.version };
  }
}
