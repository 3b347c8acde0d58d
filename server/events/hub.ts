import { randomBytes } from 'node:crypto';

/** What a store emits (lib/store's StoreEvent is one of these; chat events are another). */
export interface HubEvent {
  type: string;
  data: unknown;
}

/** The part of a store's `events` emitter the hub needs. */
export interface EventSourceLike {
  on(event: 'event', listener: (event: HubEvent) => void): unknown;
  off(event: 'event', listener: (event: HubEvent) => void): unknown;
}

/** An event as it goes out on the wire: `id: <boot>-<n>`, `event: <type>`, `data: <JSON>`. */
export interface DeliveredEvent extends HubEvent {
  id: string;
}

export type Replay =
  | { kind: 'events'; events: DeliveredEvent[] }
  /** the client's Last-Event-ID is older than the buffer, from another boot, or not ours: refetch */
  | { kind: 'resync'; id: string };

export interface Subscription {
  replay: Replay;
  close(): void;
}

const EVENT_BUFFER_SIZE = 1_000;
const MAX_STREAMS_PER_USER = 20;

const EVENT_ID = /^([0-9a-z]+)-(\d{1,15})$/;

class UserChannel {
  /** sequence number of the newest event; ids are `<boot>-<seq>`, seq from 1 */
  seq = 0;
  // Ring buffer of the newest events: slot (seq - 1) % size.
  readonly buffer: (DeliveredEvent | undefined)[];
  readonly listeners = new Set<(event: DeliveredEvent) => void>();
  /** each open stream's credential check, run when the user's access changes */
  readonly rechecks = new Set<() => void>();

  constructor(readonly size: number) {
    this.buffer = new Array(size);
  }

  push(event: DeliveredEvent): void {
    this.buffer[(this.seq - 1) % this.size] = event;
  }

  /** events with seq > after, oldest first; the caller has checked they are all still buffered */
  since(after: number): DeliveredEvent[] {
    const out: DeliveredEvent[] = [];
    for (let s = after + 1; s <= this.seq; s++) out.push(this.buffer[(s - 1) % this.size]!);
    return out;
  }
}

/**
 * Per-user live events (DESIGN §6). Stores are attached as they open; each event gets the next id
 * of its user, goes into that user's ring buffer and out to that user's open streams only.
 */
export class EventHub {
  readonly boot: string;
  private readonly channels = new Map<string, UserChannel>();
  private readonly attached = new Map<EventSourceLike, () => void>();

  constructor(
    private readonly options: { boot?: string; bufferSize?: number; maxStreamsPerUser?: number } = {},
  ) {
    // Base36 time plus randomness: unique per process start, and never contains '-'.
    this.boot = options.boot ?? `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  }

  /** Forward a store's events to its user's streams. Attaching the same source twice is a no-op. */
  attach(userId: string, source: EventSourceLike): () => void {
    const existing = this.attached.get(source);
    if (existing) return existing;
    const listener = (event: HubEvent) => {
      this.publish(userId, event);
    };
    source.on('event', listener);
    const detach = () => {
      source.off('event', listener);
      this.attached.delete(source);
    };
    this.attached.set(source, detach);
    return detach;
  }

  /** Number, buffer and deliver one event of a user (the chat dispatcher publishes chat_* here). */
  publish(userId: string, event: HubEvent): DeliveredEvent {
    const channel = this.channel(userId);
    channel.seq += 1;
    const delivered: DeliveredEvent = { id: `${this.boot}-${channel.seq}`, type: event.type, data: event.data };
    channel.push(delivered);
    for (const listener of channel.listeners) {
      try {
        listener(delivered);
      } catch (error) {
        // One broken stream must not stop the others.
        console.error('[events] listener failed:', error);
      }
    }
    return delivered;
  }

  /**
   * Open a stream: what it missed since `lastEventId` (or `resync`), then live events through
   * `listener`. Replay and registration happen in one synchronous step, so nothing falls between.
   * Returns null when the user already has the maximum number of open streams.
   */
  subscribe(
    userId: string,
    listener: (event: DeliveredEvent) => void,
    lastEventId?: string | null,
    /** run by revalidate(userId): the stream closes itself there when its credential has ended */
    recheck?: () => void,
  ): Subscription | null {
    const channel = this.channel(userId);
    if (channel.listeners.size >= this.maxStreamsPerUser) return null;
    const replay = this.replay(channel, lastEventId);
    channel.listeners.add(listener);
    if (recheck) channel.rechecks.add(recheck);
    return {
      replay,
      close: () => {
        channel.listeners.delete(listener);
        if (recheck) channel.rechecks.delete(recheck);
      },
    };
  }

  /**
   * A user's access changed (disabled, password changed or reset, a token revoked): every open
   * stream of theirs checks its credential now, and the ended ones close at once rather than at
   * their next write.
   */
  revalidate(userId: string): void {
    const channel = this.channels.get(userId);
    if (!channel) return;
    for (const recheck of [...channel.rechecks]) {
      try {
        recheck();
      } catch (error) {
        console.error('[events] recheck failed:', error);
      }
    }
  }

  /**
   * The id of the user's newest event: a page rendered now passes it to its stream
   * (`/api/events?since=`), so what happens between the render and the stream's opening is replayed.
   */
  currentId(userId: string): string {
    return `${this.boot}-${this.channels.get(userId)?.seq ?? 0}`;
  }

  /** The most streams one user may hold open (DESIGN §6). */
  get maxStreamsPerUser(): number {
    return this.options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER;
  }

  openStreams(userId: string): number {
    return this.channels.get(userId)?.listeners.size ?? 0;
  }

  private replay(channel: UserChannel, lastEventId: string | null | undefined): Replay {
    if (lastEventId === undefined || lastEventId === null || lastEventId === '') return { kind: 'events', events: [] };
    const head = `${this.boot}-${channel.seq}`;
    const match = EVENT_ID.exec(lastEventId);
    if (!match || match[1] !== this.boot) return { kind: 'resync', id: head };
    const after = Number(match[2]);
    const oldestBuffered = Math.max(1, channel.seq - channel.size + 1);
    if (after > channel.seq || after < oldestBuffered - 1) return { kind: 'resync', id: head };
    return { kind: 'events', events: channel.since(after) };
  }

  private channel(userId: string): UserChannel {
    let channel = this.channels.get(userId);
    if (!channel) {
      channel = new UserChannel(this.options.bufferSize ?? EVENT_BUFFER_SIZE);
      this.channels.set(userId, channel);
    }
    return channel;
  }
}
