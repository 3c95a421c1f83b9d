import type { ConnectedConfig } from '../config/config-schema.ts';
import { readProviderKey } from '../config/load-config.ts';
import type { TranscribeTarget } from './forward-transcription.ts';
import type { WebSocketTarget } from './relay-websocket.ts';

export interface ConnectedTargets {
  transcribe: (TranscribeTarget & { maxBodyBytes: number }) | undefined;
  websocket: WebSocketTarget | undefined;
}

/** The configured connected-provider upstreams with their keys read from the environment. */
export function resolveConnectedTargets(
  config: ConnectedConfig,
  env: NodeJS.ProcessEnv,
): ConnectedTargets {
  const { transcribe, websocket } = config;
  return {
    transcribe:
      transcribe === undefined
        ? undefined
        : {
            url: transcribe.url,
            apiKey: readProviderKey(transcribe.apiKeyEnv, env),
            headers: transcribe.headers ?? {},
            connectTimeoutMs: transcribe.connectTimeoutMs,
            firstByteTimeoutMs: transcribe.firstByteTimeoutMs,
            idleTimeoutMs: transcribe.idleTimeoutMs,
            maxBodyBytes: transcribe.maxBodyBytes,
          },
    websocket:
      websocket === undefined
        ? undefined
        : {
            url: websocket.url,
            apiKey: readProviderKey(websocket.apiKeyEnv, env),
            headers: websocket.headers ?? {},
            connectTimeoutMs: websocket.connectTimeoutMs,
          },
  };
}
