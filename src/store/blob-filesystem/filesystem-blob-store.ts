import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
  assertBlobKey,
  type BlobStore,
  type ByteRange,
} from '../../features/storage/blob-store.ts';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The default BlobStore (docs/architecture.md): files under one folder of the data dir. A write
 * goes to a temporary file in the same folder tree and is renamed into place once complete and
 * synced, so a reader sees the whole blob or none (rename is atomic within one filesystem).
 */
export class FilesystemBlobStore implements BlobStore {
  readonly #root: string;
  readonly #temporary: string;

  private constructor(root: string) {
    this.#root = root;
    this.#temporary = path.join(root, '.incoming');
  }

  /**
   * Creates the folders and removes temporary files older than `staleAfterMs`: what a process
   * killed mid-write left behind, never visible as a blob.
   */
  static async open(
    root: string,
    options: { staleAfterMs?: number; now?: number } = {},
  ): Promise<FilesystemBlobStore> {
    const store = new FilesystemBlobStore(path.resolve(root));
    await mkdir(store.#temporary, { recursive: true });
    const cutoff = (options.now ?? Date.now()) - (options.staleAfterMs ?? 86_400_000);
    for (const name of await readdir(store.#temporary)) {
      const file = path.join(store.#temporary, name);
      const info = await stat(file).catch(() => undefined);
      if (info !== undefined && info.mtimeMs < cutoff) await rm(file, { force: true });
    }
    return store;
  }

  async put(key: string, body: Readable, _options: { contentType: string }): Promise<void> {
    const target = this.#pathOf(key);
    const temporary = path.join(this.#temporary, randomBytes(12).toString('hex'));
    // `flush` syncs the file before closing it: a crash after the rename never exposes a short
    // file.
    const sink = createWriteStream(temporary, { flags: 'wx', flush: true });
    try {
      await pipeline(body, sink);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      // A body that fails early can destroy the sink while its file is still being opened; the
      // open then completes (creating the file) after the failure. Removing the file only once
      // the sink has closed leaves nothing behind.
      if (!sink.closed) await once(sink, 'close').catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    const file = await open(this.#pathOf(key), 'r').catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (file === undefined) return undefined;
    return file.createReadStream(range === undefined ? {} : { start: range.start, end: range.end });
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const info = await stat(this.#pathOf(key));
      return { size: info.size };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#pathOf(key), { force: true });
  }

  #pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.#root, ...key.split('/'));
  }
}
