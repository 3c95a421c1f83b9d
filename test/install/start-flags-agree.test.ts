import { describe, expect, it } from 'vitest';

import {
  nodeFlagsOf,
  repositoryFile,
  startScriptNodeFlags,
} from '../support/start-script-flags.ts';

/**
 * The Node flags of `npm start` are repeated wherever the build is started without npm
 * (docs/operations.md, "Running"); a flag changed in one place and not the others would leave
 * the container or the service running the gateway unlike the benchmark measured it.
 */
describe('the Node flags of npm start', () => {
  const flags = startScriptNodeFlags();

  it('bound the young generation and the V8 worker pool', () => {
    expect(flags).toEqual(
      expect.arrayContaining([
        '--min-semi-space-size=8',
        '--max-semi-space-size=8',
        '--v8-pool-size=1',
      ]),
    );
  });

  it('are the Dockerfile CMD’s', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(repositoryFile('Dockerfile'))?.[1];
    const words = JSON.parse(cmd ?? '[]') as string[];
    expect(words.at(0)).toBe('node');
    expect(words.at(-1)).toBe('dist/main.js');
    expect(words.slice(1, -1)).toEqual(flags);
  });

  it('are the systemd unit’s', () => {
    const unit = repositoryFile('deploy/switchyard@.service');
    expect(nodeFlagsOf(unit, /\/opt\/switchyard\/dist\/main\.js/)).toEqual(flags);
  });

  it('are the image check’s', () => {
    const script = repositoryFile('scripts/check-image-root.sh');
    expect(nodeFlagsOf(script, /dist\/main\.js/)).toEqual(flags);
  });
});
