import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

/** A file of the built studio, ready to send. */
export type StudioFile = { type: string; body: Buffer };

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * The studio as `make build` leaves it in `dist/studio/`: its page and its hashed assets. The asset names
 * are read from the directory once, on the first request, and only those names are ever served (no path
 * from a request reaches the file system). Each file is read on its first request and kept: the whole
 * studio is some tens of KB. A failed read is not kept, so a build made after the start is found.
 */
export class StudioFiles {
  private page: Promise<Buffer> | null = null;
  private names: Promise<ReadonlyMap<string, string>> | null = null;
  private readonly read = new Map<string, Promise<StudioFile>>();

  constructor(
    private readonly root: string,
    /** Written into the page, so the app reads answers in the server's shape (docs/api.md §1). */
    private readonly profile: 'plain' | 'directus',
  ) {}

  /** The page, or null when the studio has not been built. */
  async index(): Promise<Buffer | null> {
    this.page ??= readFile(join(this.root, 'index.html'), 'utf8').then((html) =>
      Buffer.from(
        html.replace(
          '<meta name="datagate-profile" content="plain" />',
          `<meta name="datagate-profile" content="${this.profile}" />`,
        ),
      ),
    );
    return this.page.catch(() => {
      this.page = null;
      return null;
    });
  }

  /** A hashed asset by its file name, or null when there is no such asset. */
  async asset(name: string): Promise<StudioFile | null> {
    this.names ??= this.listAssets();
    const names = await this.names.catch(() => {
      this.names = null;
      return new Map<string, string>();
    });
    const type = names.get(name);
    if (type === undefined) return null;
    let file = this.read.get(name);
    if (!file) {
      file = readFile(join(this.root, 'assets', name)).then((body) => ({ type, body }));
      file.catch(() => this.read.delete(name));
      this.read.set(name, file);
    }
    return file.catch(() => null);
  }

  /** Asset name → content type, for the files of a type the studio uses. */
  private async listAssets(): Promise<ReadonlyMap<string, string>> {
    const names = new Map<string, string>();
    for (const name of await readdir(join(this.root, 'assets'))) {
      const type = TYPES[extname(name)];
      if (type) names.set(name, type);
    }
    return names;
  }
}
