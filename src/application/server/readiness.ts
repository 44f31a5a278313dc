/**
 * Whether the server has done its start-up work (migrations, schema, first admin). Until then the HTTP
 * adapter answers everything but the health check with 503: handlers would meet tables that may not
 * exist yet and a schema catalog never read.
 */
export class Readiness {
  private constructor(private pending: string | undefined) {}

  /** For a container whose database was prepared before it was built (command line, tests). */
  static ready(): Readiness {
    return new Readiness(undefined);
  }

  static starting(): Readiness {
    return new Readiness('start-up work not done');
  }

  get isReady(): boolean {
    return this.pending === undefined;
  }

  /** Why start-up is not done, in words safe to show anyone; undefined once it is. */
  get reason(): string | undefined {
    return this.pending;
  }

  stillStarting(reason: string): void {
    this.pending = reason;
  }

  markReady(): void {
    this.pending = undefined;
  }
}
