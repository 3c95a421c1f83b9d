import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface GatewayChild {
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** What the process wrote to stderr so far (for a failing test's message). */
  errors(): string;
  /** kill -9, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful stop), resolved with the exit code. */
  terminate(): Promise<number | null>;
}

/**
 * A gateway in a real process of its own (run-gateway-child.ts), for tests that kill it or stop
 * it with a signal. Resolves once it listens.
 */
export async function spawnGatewayChild(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<GatewayChild> {
  const script = fileURLToPath(new URL('./run-gateway-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`gateway exited ${code}: ${errors}`)));
  });
  return {
    url,
    child,
    errors: () => errors,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async terminate() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
