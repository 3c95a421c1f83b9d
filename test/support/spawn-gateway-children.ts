import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Gateways in processes of their own, sharing one store, each listening on a loopback port. */
export interface GatewayChildren {
  /** Each gateway's origin (`http://127.0.0.1:<port>`). */
  addresses: string[];
  /** Ends every child's stdin (each then closes its gateway) and waits for them to exit. */
  close(): Promise<void>;
}

/**
 * Starts `count` gateways with one configuration each (run-gateway-child.ts), resolved once all
 * listen. Every process of one PostgreSQL store seals compaction items with the same secret.
 */
export async function spawnGatewayChildren(
  configs: Array<Record<string, unknown>>,
  env: Record<string, string> = {},
): Promise<GatewayChildren> {
  const script = fileURLToPath(new URL('./run-gateway-child.ts', import.meta.url));
  const children: ChildProcessWithoutNullStreams[] = configs.map((config) =>
    spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...env,
        SWITCHYARD_SEAL_KEY: 'gateway-children-test-seal-secret-0123456789',
      },
    }),
  );
  const close = async () => {
    for (const child of children) child.stdin.end();
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('exit', resolve))
          : null,
      ),
    );
  };
  try {
    const addresses = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            let output = '';
            let errors = '';
            child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
            child.stdout.on('data', (chunk: Buffer) => {
              output += chunk.toString();
              const match = /listening (\S+)/.exec(output);
              if (match?.[1] !== undefined) resolve(match[1]);
            });
            child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${errors}`)));
          }),
      ),
    );
    return { addresses, close };
  } catch (error) {
    await close();
    throw error;
  }
}
