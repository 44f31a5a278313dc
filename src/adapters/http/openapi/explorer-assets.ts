import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One swagger-ui-dist file the explorer page loads, served at /docs/<name>. */
export type ExplorerAsset = { name: string; type: string; load(): Promise<Buffer> };

/** The only files of the package that are ever read: an allow-list, not a directory. */
const SWAGGER_UI_FILES: ReadonlyArray<readonly [name: string, type: string]> = [
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
];

/**
 * Each file is read once, on its first request, and kept: about 1.5 MB in all, spent only by a server
 * whose /docs is opened. A failed read is not kept, so the next request tries again. The package is looked
 * for then too, not at every start.
 */
export function explorerAssets(): ExplorerAsset[] {
  let dist: string | undefined;
  const packageDir = () => {
    dist ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    return dist;
  };
  return SWAGGER_UI_FILES.map(([name, type]) => {
    let body: Promise<Buffer> | null = null;
    const load = () => {
      if (body === null) {
        const reading = readFile(join(packageDir(), name));
        reading.catch(() => {
          body = null;
        });
        body = reading;
      }
      return body;
    };
    return { name, type, load };
  });
}
