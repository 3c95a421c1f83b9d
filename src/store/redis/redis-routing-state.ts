import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MemoryRoutingState } from '../../routing/memory-routing-state.ts';
import type { RoutingState } from '../../routing/routing-state.ts';
import type { HealthEvent, TargetHealth } from '../../routing/target-health.ts';
import {
  FORGET_ROUTING_STATE_SCRIPT,
  RECORD_HEALTH_EVENT_SCRIPT,
} from './redis-routing-state-scripts.ts';
import { defineRedisScript, runRedisScript } from './run-redis-script.ts';

const recordScript = defineRedisScript(RECORD_HEALTH_EVENT_SCRIPT);

/** The shared hash outlives its latest wait by this much, for gateway clocks ahead of Redis. */
const EXPIRY_SLACK_MS = 60_000;
/** How long a request may wait for a pin another process wrote before routing without it. */
const DEFAULT_PIN_LOOKUP_MS = 50;
/** How long closing waits for Redis to take the writes already sent. */
const CLOSE_WAIT_MS = 1_000;

export interface RedisRoutingStateOptions {
  /** Every key and the channel live under it (`<prefix>:health`, `<prefix>:pin:…`). */
  keyPrefix: string;
  maxPins: number;
  now: () => number;
  pinLookupMs?: number;
  /** Told once when Redis stops answering, and once when it answers again. */
  onOutage?: (error: unknown) => void;
  onRecovery?: () => void;
}

type Message = { origin: string; event: HealthEvent } | { origin: string; forget: true };

/**
 * Routing state shared by every gateway process through Redis (docs/routing.md, "Shared state";
 * docs/decisions/0143). Decisions read a local `MemoryRoutingState`, never Redis: a change learned
 * here is applied locally, recorded in a hash (so a process that starts or reconnects later loads
 * the waits still in force) and published; the subscriber applies what the others publish. Pins
 * are written through to Redis, and read from it only when this process does not hold the
 * session. Redis being down costs sharing, never a request: every write is fire and forget, and
 * neither start-up nor readiness waits for Redis.
 *
 * Owns both connections: `client` for commands (best with its offline queue off, so a command
 * sent during an outage fails at once), `subscriber` for the channel (a subscribed connection
 * can send nothing else). Each time both answer again, it subscribes, loads the hash, and
 * records what it learned while apart.
 */
export class RedisRoutingState implements RoutingState {
  readonly #view: MemoryRoutingState;
  readonly #client: Redis;
  readonly #subscriber: Redis;
  readonly #healthKey: string;
  readonly #pinPrefix: string;
  readonly #channel: string;
  readonly #origin = randomUUID();
  readonly #now: () => number;
  readonly #pinLookupMs: number;
  readonly #onOutage: (error: unknown) => void;
  readonly #onRecovery: () => void;
  /** Changes Redis did not take, by kind and target, oldest first (sent when it answers). */
  readonly #unsent = new Map<string, HealthEvent>();
  /** Connections not (or no longer) answering. */
  readonly #down = new Set<Redis>();
  /** The outage was told; the next time both connections answer, its end is told. */
  #outageReported = false;
  #closing = false;
  readonly #shared: Promise<void>;
  #markShared: () => void = () => {};

  constructor(client: Redis, subscriber: Redis, options: RedisRoutingStateOptions) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#healthKey = `${options.keyPrefix}:health`;
    this.#pinPrefix = `${options.keyPrefix}:pin:`;
    this.#channel = `${options.keyPrefix}:events`;
    this.#now = options.now;
    this.#pinLookupMs = options.pinLookupMs ?? DEFAULT_PIN_LOOKUP_MS;
    this.#onOutage = options.onOutage ?? (() => {});
    this.#onRecovery = options.onRecovery ?? (() => {});
    this.#view = new MemoryRoutingState({ maxPins: options.maxPins, now: options.now });
    this.#view.onPublish = (event) => this.#share(event);
    this.#shared = new Promise((resolve) => (this.#markShared = resolve));
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.#channel) this.#receive(text);
    });
    for (const connection of [client, subscriber]) {
      connection.on('close', () => this.#lost(connection, new Error('connection to Redis lost')));
      connection.on('ready', () => this.#regained(connection));
      if (connection.status !== 'ready') this.#down.add(connection);
    }
    if (this.#down.size === 0) this.#resync();
  }

  /** Resolves once this process is subscribed and has loaded the health in force. */
  whenShared(): Promise<void> {
    return this.#shared;
  }

  health(id: string): TargetHealth {
    return this.#view.health(id);
  }

  publish(event: HealthEvent): void {
    this.#view.publish(event);
  }

  pinned(session: string): string | undefined | Promise<string | undefined> {
    return this.#view.pinned(session) ?? this.#lookUpPin(session);
  }

  pin(session: string, target: string, ttlMs: number): void {
    this.#view.pin(session, target, ttlMs);
    this.#client.set(this.#pinKey(session), target, 'PX', Math.max(1, Math.round(ttlMs))).then(
      () => this.#answered(),
      (error: unknown) => this.#failed(error),
    );
  }

  entries(): IterableIterator<[string, TargetHealth]> {
    return this.#view.entries();
  }

  forget(): void {
    this.#view.forget();
    this.#unsent.clear();
    const message: Message = { origin: this.#origin, forget: true };
    // EVAL, not EVALSHA then EVAL: a lookup sent after the reset must reach Redis after it.
    this.#client
      .eval(
        FORGET_ROUTING_STATE_SCRIPT,
        1,
        this.#healthKey,
        `${escapeGlob(this.#pinPrefix)}*`,
        this.#channel,
        JSON.stringify(message),
      )
      .then(
        () => this.#answered(),
        (error: unknown) => this.#failed(error),
      );
  }

  get pinnedCount(): number {
    return this.#view.pinnedCount;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#subscriber.disconnect();
    // Lets the writes already sent reach Redis, unless it has stopped answering.
    if (this.#client.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#client.quit().catch(() => {}),
        new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    this.#client.disconnect();
  }

  #share(event: HealthEvent): void {
    const message: Message = { origin: this.#origin, event };
    const args: Array<string | number> = [this.#channel, JSON.stringify(message)];
    switch (event.kind) {
      case 'cooldown':
      case 'circuit-open':
      case 'disabled':
        args.push('keep', fieldOf(event.kind, event.target), JSON.stringify(event));
        args.push(event.until + EXPIRY_SLACK_MS);
        break;
      case 'circuit-closed':
        args.push('drop', fieldOf('circuit-open', event.target));
        break;
      case 'enabled':
        // An answer re-enabling a key also ends its cooldown (target-health.ts).
        args.push('drop', fieldOf('disabled', event.target), fieldOf('cooldown', event.target));
        break;
    }
    runRedisScript(this.#client, recordScript, [this.#healthKey], args).then(
      () => this.#answered(),
      (error: unknown) => {
        // Kept to be sent once Redis answers; a later change of the same kind replaces it.
        const slot = slotOf(event);
        this.#unsent.delete(slot);
        this.#unsent.set(slot, event);
        this.#failed(error);
      },
    );
  }

  #receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null || message.origin === this.#origin) return;
    if ('forget' in message) {
      this.#view.forget();
      this.#unsent.clear();
    } else if (isHealthEvent(message.event)) this.#view.apply(message.event);
  }

  /** Applies the waits recorded in the hash that are not over yet. */
  async #load(): Promise<void> {
    const recorded = await this.#client.hgetall(this.#healthKey);
    const now = this.#now();
    for (const text of Object.values(recorded)) {
      let event: unknown;
      try {
        event = JSON.parse(text);
      } catch {
        continue;
      }
      if (isHealthEvent(event) && 'until' in event && event.until > now) this.#view.apply(event);
    }
  }

  async #lookUpPin(session: string): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.#pinLookupMs, undefined);
    });
    const key = this.#pinKey(session);
    const lookup = this.#client
      .multi()
      .get(key)
      .pttl(key)
      .exec()
      .then((replies) => {
        const target = replies?.[0]?.[1];
        const ttlMs = replies?.[1]?.[1];
        if (typeof target !== 'string' || typeof ttlMs !== 'number' || ttlMs <= 0) return undefined;
        // Held here from now on: the next turn of this conversation does not ask Redis again.
        this.#view.pin(session, target, ttlMs);
        return target;
      })
      .catch((error: unknown) => {
        this.#failed(error);
        return undefined;
      });
    try {
      return await Promise.race([lookup, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Session keys may be long (a hash of a system prompt's text); the key stays short. */
  #pinKey(session: string): string {
    return this.#pinPrefix + createHash('sha256').update(session).digest('base64url');
  }

  #failed(error: unknown): void {
    if (this.#closing) return;
    this.#down.add(this.#client);
    this.#reportOutage(error);
  }

  /** A command answered: a failure that dropped no connection (a replica refusing writes) is over. */
  #answered(): void {
    if (this.#down.has(this.#client) && this.#client.status === 'ready')
      this.#regained(this.#client);
  }

  #lost(connection: Redis, error: unknown): void {
    if (this.#closing) return;
    this.#down.add(connection);
    this.#reportOutage(error);
  }

  #reportOutage(error: unknown): void {
    if (this.#outageReported) return;
    this.#outageReported = true;
    this.#onOutage(error);
  }

  #regained(connection: Redis): void {
    if (this.#closing || !this.#down.delete(connection) || this.#down.size > 0) return;
    this.#resync();
    if (this.#outageReported) {
      this.#outageReported = false;
      this.#onRecovery();
    }
  }

  /** Subscribes first, so that no event falls between the load and the first message. */
  #resync(): void {
    this.#subscriber
      .subscribe(this.#channel)
      // Known to Redis before the first event, so events reach it in the order they were sent.
      .then(() => this.#client.script('LOAD', RECORD_HEALTH_EVENT_SCRIPT))
      .then(() => this.#load())
      .then(() => {
        this.#sendUnsent();
        this.#markShared();
      })
      .catch((error: unknown) => this.#failed(error));
  }

  /**
   * After an outage: the changes this process could not send are sent now, in the order they
   * were made, and applied here again (the hash just loaded may hold what they replaced). Waits
   * already over are dropped; an ending (a closed circuit, a re-enabled key) always goes.
   */
  #sendUnsent(): void {
    const now = this.#now();
    const unsent = [...this.#unsent.values()];
    this.#unsent.clear();
    for (const event of unsent) {
      if ('until' in event && event.until <= now) continue;
      this.#view.publish(event);
    }
  }
}

/** A prefix taken literally in a SCAN pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Changes that replace one another: a wait of one kind and its ending, on one target. */
function slotOf(event: HealthEvent): string {
  const kind =
    event.kind === 'circuit-closed'
      ? 'circuit-open'
      : event.kind === 'enabled'
        ? 'disabled'
        : event.kind;
  return fieldOf(kind, event.target);
}

function fieldOf(kind: 'cooldown' | 'circuit-open' | 'disabled', target: string): string {
  return `${kind}:${target}`;
}

const eventKinds: ReadonlySet<string> = new Set([
  'cooldown',
  'circuit-open',
  'circuit-closed',
  'disabled',
  'enabled',
]);

/** What another process (or another version of it) sent, checked before it changes routing. */
function isHealthEvent(value: unknown): value is HealthEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  if (typeof event.kind !== 'string' || !eventKinds.has(event.kind)) return false;
  if (typeof event.target !== 'string') return false;
  if (event.kind === 'circuit-closed' || event.kind === 'enabled') return true;
  if (typeof event.until !== 'number' || !Number.isFinite(event.until)) return false;
  return event.kind !== 'disabled' || event.reason === 'refused' || event.reason === 'quota';
}
