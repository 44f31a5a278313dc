/** What one part of a store needs to close: a name for the warning, and the closing itself. */
export type ClosingPart = { readonly name: string; close(): Promise<void> };

export type CloseInTurnOptions = {
  /** How long one part may take; past it, shutdown moves on without it. */
  limitMs: number;
  /** Told the name of each part that did not close in time. */
  warn(message: string): void;
};

/** Closing one part of the store on a server: ample for a pool's goodbyes, short enough for an operator. */
export const CLOSE_PART_MS = 5000;

/**
 * Closes the parts one after the other, each bounded by `limitMs`: a part still closing then is named in a
 * warning and left behind, so a shutdown never waits forever on a driver (a connection it never gets back,
 * a server that stopped answering). Every part is tried; the first failure is thrown afterwards.
 */
export async function closeInTurn(
  parts: ReadonlyArray<ClosingPart>,
  { limitMs, warn }: CloseInTurnOptions,
): Promise<void> {
  const failures: unknown[] = [];
  for (const part of parts) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), limitMs);
    });
    try {
      const closing = part.close();
      // A part left behind may still fail; nobody waits for it any more.
      closing.catch(() => {});
      if ((await Promise.race([closing, late])) === 'late')
        warn(`${part.name} did not close within ${limitMs} ms; shutting down without it`);
    } catch (error) {
      failures.push(error);
    } finally {
      clearTimeout(timer);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** The warning of a store closing on its own: Node's, on stderr, where both the CLI and a server show it. */
export function warnOnStderr(message: string): void {
  process.emitWarning(message, 'DatagateShutdownWarning');
}
