import { ConfigError } from '../config/load-config.ts';
import { StoreHeldError } from '../store/store-held-error.ts';
import { StoreNewerThanBuildError } from '../store/store-newer-than-build-error.ts';
import { DependencyUnreachableError } from '../store/wait-for-dependency.ts';

/**
 * The exit codes of a gateway that cannot start (docs/operations.md, "Exit codes"), from
 * sysexits.h where one fits: a script or a process manager can tell a mistake to fix from a
 * condition to wait out.
 */
export const startupExitCodes = {
  /** The configuration, or a secret it names, is wrong. EX_CONFIG. */
  configuration: 78,
  /** A store the configuration names (PostgreSQL, Redis) cannot be reached. EX_UNAVAILABLE. */
  dependencyUnreachable: 69,
  /** The server's address cannot be bound: the port is in use or not ours. EX_OSERR. */
  addressUnavailable: 71,
  /** Another live gateway serves the embedded store. EX_TEMPFAIL: retry once it is gone. */
  storeHeld: 75,
} as const;

export interface StartupFailure {
  exitCode: number;
  /** One line that names the fix. */
  message: string;
  fields: Record<string, unknown>;
}

/**
 * What an operator sees of a start-up failure the gateway can explain: one line and an exit
 * code, not a stack. Undefined for anything else, which is a bug and keeps its stack.
 */
export function explainStartupFailure(
  error: unknown,
  listening: { host: string; port: number },
): StartupFailure | undefined {
  if (error instanceof ConfigError) {
    return { exitCode: startupExitCodes.configuration, message: error.message, fields: {} };
  }
  if (error instanceof DependencyUnreachableError) {
    const { dependency, address, reason } = error;
    return {
      exitCode: startupExitCodes.dependencyUnreachable,
      message: error.message,
      fields: { dependency, address, reason },
    };
  }
  if (error instanceof StoreNewerThanBuildError) {
    return { exitCode: startupExitCodes.configuration, message: error.message, fields: {} };
  }
  if (error instanceof StoreHeldError) {
    return { exitCode: startupExitCodes.storeHeld, message: error.message, fields: {} };
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    const { host, port } = listening;
    const why =
      code === 'EADDRINUSE'
        ? 'is in use by another process'
        : code === 'EACCES'
          ? 'may not be bound by this user (ports below 1024 need privileges)'
          : 'is not an address of this machine';
    return {
      exitCode: startupExitCodes.addressUnavailable,
      message: `Cannot listen on ${host}:${port}: the address ${why}. Stop that process or set server.port (PORT) and server.host (HOST) to a free address.`,
      fields: { host, port, code },
    };
  }
  return undefined;
}
