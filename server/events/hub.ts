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

/** What a user's events were on the instance they are moved from: the target continues from it. */
export interface EventHandoff {
  boot: string;
  seq: number;
  events: DeliveredEvent[];
  /** older boots that instance had itself adopted (a user moved twice) */
  adopted?: Record<string, number>;
}

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
  /** each open stream's way to end itself with a reconnect hint (a move of the user) */
  readonly disconnects = new Set<(reason: string) => void>();
  /** boots of the instances this user was moved from, and the last seq each numbered: their ids resume here */
  readonly adoptedBoots = new Map<string, number>();

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
    /** run by disconnect(userId): the stream says why and closes, and the client reconnects */
    onDisconnect?: (reason: string) => void,
  ): Subscription | null {
    const channel = this.channel(userId);
    if (channel.listeners.size >= this.maxStreamsPerUser) return null;
    const replay = this.replay(channel, lastEventId);
    channel.listeners.add(listener);
    if (recheck) channel.rechecks.add(recheck);
    if (onDisconnect) channel.disconnects.add(onDisconnect);
    return {
      replay,
      close: () => {
        channel.listeners.delete(listener);
        if (recheck) channel.rechecks.delete(recheck);
        if (onDisconnect) channel.disconnects.delete(onDisconnect);
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

  /** End every open stream of the user with a reconnect hint (the user is frozen or moved). */
  disconnect(userId: string, reason: string): void {
    const channel = this.channels.get(userId);
    if (!channel) return;
    for (const end of [...channel.disconnects]) {
      try {
        end(reason);
      } catch (error) {
        console.error('[events] disconnect failed:', error);
      }
    }
  }

  /** The user's event numbering and buffer, for the instance the user moves to. */
  handoff(userId: string): EventHandoff {
    const channel = this.channel(userId);
    const oldest = Math.max(1, channel.seq - channel.size + 1);
    return { boot: this.boot, seq: channel.seq, events: channel.seq > 0 ? channel.since(oldest - 1) : [], adopted: Object.fromEntries(channel.adoptedBoots) };
  }

  /**
   * A user moved here: their ids continue from the source's (`<this boot>-<seq + 1>` onwards) and
   * a Last-Event-ID the source gave out replays from the source's buffer, so nothing is lost.
   */
  adopt(userId: string, handoff: EventHandoff): void {
    const channel = new UserChannel(this.options.bufferSize ?? EVENT_BUFFER_SIZE);
    channel.seq = Math.max(0, handoff.seq - handoff.events.length);
    for (const event of handoff.events) {
      channel.seq += 1;
      channel.push(event);
    }
    channel.seq = handoff.seq;
    for (const [boot, seq] of Object.entries(handoff.adopted ?? {})) channel.adoptedBoots.set(boot, seq);
    if (handoff.boot !== this.boot) channel.adoptedBoots.set(handoff.boot, handoff.seq);
    const previous = this.channels.get(userId);
    if (previous) for (const end of [...previous.disconnects]) end('moved');
    this.channels.set(userId, channel);
  }

  /** Forget a user's events here (a copy rolled back, a user moved away for good). */
  forget(userId: string): void {
    this.disconnect(userId, 'moved');
    this.channels.delete(userId);
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
    if (!match) return { kind: 'resync', id: head };
    const after = Number(match[2]);
    // An id of the instance the user came from counts up to the seq it had reached there.
    const adoptedUpTo = channel.adoptedBoots.get(match[1]!);
    if (match[1] !== this.boot && (adoptedUpTo === undefined || after > adoptedUpTo)) return { kind: 'resync', id: head };
    const oldestBuffered = Math.max(1, channel.seq - channel.size + 1);
    if (after > channel.seq || after < oldestBuffered - 1) return { kind: 'resync', id: head };
    const events = channel.since(after);
    // A buffer adopted from an instance that kept fewer events has holes before them.
    if (events.some((event) => event === undefined)) return { kind: 'resync', id: head };
    return { kind: 'events', events };
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
