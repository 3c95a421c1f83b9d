import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { Settlement } from './credit-ledger.ts';
import type { SettlementSpool } from './settlement-spool.ts';

const fileSuffix = '.settlement.json';

/**
 * Waiting settlements as one JSON file each in a folder of this process (`<dataDir>/settlements/`):
 * what the embedded store's single process replays at its next start (docs/decisions/0017).
 */
export class FileSettlementSpool implements SettlementSpool {
  readonly #directory: string;

  constructor(directory: string) {
    this.#directory = directory;
  }

  async keep(settlement: Settlement): Promise<void> {
    await mkdir(this.#directory, { recursive: true });
    // Written aside and renamed into place, so a load never reads half a file.
    const file = this.#file(settlement.id);
    await writeFile(`${file}.partial`, JSON.stringify(settlement));
    await rename(`${file}.partial`, file);
  }

  async forget(settlementId: string): Promise<void> {
    await rm(this.#file(settlementId), { force: true });
  }

  async load(onUnreadable: (error: unknown, where: string) => void): Promise<Settlement[]> {
    let names: string[];
    try {
      names = await readdir(this.#directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const settlements: Settlement[] = [];
    for (const name of names.filter((item) => item.endsWith(fileSuffix))) {
      const file = path.join(this.#directory, name);
      const text = await readFile(file, 'utf8');
      try {
        settlements.push(JSON.parse(text) as Settlement);
      } catch (error) {
        // Not a settlement this gateway wrote (files are renamed into place whole).
        onUnreadable(error, file);
      }
    }
    return settlements;
  }

  #file(settlementId: string): string {
    return path.join(this.#directory, `${settlementId}${fileSuffix}`);
  }
}
