// autocannon 8 ships no types; only the part of its programmatic API the bench uses.
declare module 'autocannon' {
  interface AutocannonOptions {
    /** Several URLs: connections are spread over them (several gateway processes). */
    url: string | string[];
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    duration?: number;
    timeout?: number;
    pipelining?: number;
    /** Each request may be rewritten before it is sent (a fresh idempotency key). */
    requests?: Array<{
      method?: string;
      path?: string;
      setupRequest?(request: AutocannonRequest): AutocannonRequest;
    }>;
  }
  interface AutocannonRequest {
    headers?: Record<string, string>;
    [field: string]: unknown;
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface AutocannonResult {
    duration: number;
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  export type { AutocannonOptions, AutocannonRequest };
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
