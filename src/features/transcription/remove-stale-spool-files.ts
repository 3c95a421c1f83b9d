import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Removes spool files last written before `olderThan` (epoch ms): what a process that stopped
 * in the middle of a request left behind. Younger files may belong to a running request.
 */
export async function removeStaleSpoolFiles(directory: string, olderThan: number): Promise<void> {
  for (const name of await readdir(directory)) {
    const file = path.join(directory, name);
    const info = await stat(file).catch(() => undefined);
    if (info !== undefined && info.isFile() && info.mtimeMs < olderThan)
      await rm(file, { force: true });
  }
}
