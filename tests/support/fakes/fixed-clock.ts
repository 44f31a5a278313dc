import type { Clock } from '../../../src/application/ports/clock.ts';

/** A clock tests move by hand, so expiry and grace periods are tested without sleeping. */
export class FixedClock implements Clock {
  private current: Date;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start);
  }

  now() {
    return new Date(this.current);
  }

  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }

  set(at: Date | string) {
    this.current = new Date(at);
  }
}
