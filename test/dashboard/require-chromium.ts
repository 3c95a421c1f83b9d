import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

/** Debian's Chromium (`apt-get install chromium`); `SWITCHYARD_CHROMIUM` names another. */
export const chromiumPath = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';

export type BrowserTestMode = 'run' | 'skip' | 'fail';

/** Run when Chromium is installed; without it skip, except under CI, which must prove the pages. */
export function chooseBrowserTestMode(
  options: { path?: string; env?: NodeJS.ProcessEnv } = {},
): BrowserTestMode {
  if (existsSync(options.path ?? chromiumPath)) return 'run';
  const ci = (options.env ?? process.env).CI;
  return ci !== undefined && ci !== '' && ci !== 'false' ? 'fail' : 'skip';
}

/**
 * A `describe` whose tests drive Chromium. Outside CI, without Chromium, its tests are skipped
 * with a warning that says so; under CI they fail.
 */
export function describeWithChromium(title: string, body: () => void): void {
  const mode = chooseBrowserTestMode();
  if (mode === 'run') {
    describe.sequential(title, body);
  } else if (mode === 'fail') {
    describe(title, () => {
      it('finds Chromium, which CI requires', () => {
        throw new Error(`${chromiumPath} is missing: apt-get install -y chromium`);
      });
    });
  } else {
    console.warn(
      `\n*** SKIPPED "${title}": ${chromiumPath} is not installed. ` +
        'Install it (apt-get install -y chromium) to run the dashboard browser tests. ***\n',
    );
    describe.skip(title, body);
  }
}
