import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EventHub, type DeliveredEvent, type EventSourceLike } from './hub.js';

function emitter(): EventEmitter & EventSourceLike {
  return new EventEmitter() as EventEmitter & EventSourceLike;
}

function collect(hub: EventHub, userId: string, lastEventId?: string) {
  const got: DeliveredEvent[] = [];
  const sub = hub.subscribe(userId, (e) => got.push(e), lastEventId);
  if (!sub) throw new Error('refused');
  return { got, sub };
}

describe('EventHub', () => {
  it('delivers a store event to every stream of its user and none of another user', () => {
    const hub = new EventHub({ boot: 'b1' });
    const storeA = emitter();
    const storeB = emitter();
    hub.attach('A', storeA);
    hub.attach('B', storeB);
    const a1 = collect(hub, 'A');
    const a2 = collect(hub, 'A');
    const b = collect(hub, 'B');
    storeA.emit('event', { type: 'session_created', data: { id: 's1' } });
    expect(a1.got).toEqual([{ id: 'b1-1', type: 'session_created', data: { id: 's1' } }]);
    expect(a2.got).toEqual(a1.got);
    expect(b.got).toEqual([]);
  });

  it('numbers events per user, increasing', () => {
    const hub = new EventHub({ boot: 'b1' });
    expect(hub.publish('A', { type: 'x', data: {} }).id).toBe('b1-1');
    expect(hub.publish('B', { type: 'x', data: {} }).id).toBe('b1-1');
    expect(hub.publish('A', { type: 'x', data: {} }).id).toBe('b1-2');
  });

  it('attaches a source once, and detaching stops forwarding', () => {
    const hub = new EventHub({ boot: 'b1' });
    const store = emitter();
    const detach = hub.attach('A', store);
    expect(hub.attach('A', store)).toBe(detach);
    const a = collect(hub, 'A');
    store.emit('event', { type: 'x', data: 1 });
    detach();
    store.emit('event', { type: 'x', data: 2 });
    expect(a.got.map((e) => e.data)).toEqual([1]);
  });

  it('replays exactly what a reconnecting stream missed', () => {
    const hub = new EventHub({ boot: 'b1' });
    for (let i = 1; i <= 5; i++) hub.publish('A', { type: 'x', data: i });
    const { got, sub } = collect(hub, 'A', 'b1-2');
    expect(sub.replay).toEqual({ kind: 'events', events: [3, 4, 5].map((i) => ({ id: `b1-${i}`, type: 'x', data: i })) });
    hub.publish('A', { type: 'x', data: 6 });
    expect(got.map((e) => e.id)).toEqual(['b1-6']);
    expect(collect(hub, 'A', 'b1-6').sub.replay).toEqual({ kind: 'events', events: [] });
  });

  it('asks for a resync for an id from another boot, a future id, garbage, or one older than the buffer', () => {
    const hub = new EventHub({ boot: 'b2', bufferSize: 3 });
    for (let i = 1; i <= 5; i++) hub.publish('A', { type: 'x', data: i });
    for (const id of ['b1-4', 'b2-9', 'nonsense', 'b2-1']) {
      expect(collect(hub, 'A', id).sub.replay).toEqual({ kind: 'resync', id: 'b2-5' });
    }
    // b2-2 is just old enough: events 3..5 are all still buffered.
    expect(collect(hub, 'A', 'b2-2').sub.replay).toMatchObject({ kind: 'events', events: [{ id: 'b2-3' }, { id: 'b2-4' }, { id: 'b2-5' }] });
  });

  it('names the id a page renders at, and a stream opened from it gets what happened since', () => {
    const hub = new EventHub({ boot: 'b1' });
    expect(hub.currentId('A')).toBe('b1-0');
    hub.publish('A', { type: 'x', data: 1 });
    const renderedAt = hub.currentId('A');
    expect(renderedAt).toBe('b1-1');
    hub.publish('A', { type: 'x', data: 2 });
    hub.publish('B', { type: 'x', data: 'other user' });
    const sub = hub.subscribe('A', () => {}, renderedAt);
    expect(sub?.replay).toEqual({ kind: 'events', events: [{ id: 'b1-2', type: 'x', data: 2 }] });
  });

  it('keeps a ring of the newest events', () => {
    const hub = new EventHub({ boot: 'b1', bufferSize: 1000 });
    for (let i = 1; i <= 2500; i++) hub.publish('A', { type: 'x', data: i });
    const replay = collect(hub, 'A', 'b1-1500').sub.replay;
    expect(replay.kind === 'events' && replay.events.map((e) => e.data)).toEqual(Array.from({ length: 1000 }, (_, i) => 1501 + i));
    expect(collect(hub, 'A', 'b1-1499').sub.replay.kind).toBe('resync');
  });

  it('refuses the 21st open stream of a user, and frees a slot on close', () => {
    const hub = new EventHub({ boot: 'b1' });
    const subs = Array.from({ length: 20 }, () => hub.subscribe('A', () => {}));
    expect(subs.every(Boolean)).toBe(true);
    expect(hub.subscribe('A', () => {})).toBeNull();
    expect(hub.subscribe('B', () => {})).not.toBeNull();
    subs[0]!.close();
    expect(hub.openStreams('A')).toBe(19);
    expect(hub.subscribe('A', () => {})).not.toBeNull();
  });

  it('a user moved to another hub keeps their ids: the numbers continue, and an id of the old hub replays from there', () => {
    const source = new EventHub({ boot: 'src' });
    for (let i = 0; i < 5; i++) source.publish('A', { type: 'x', data: { i } });
    const target = new EventHub({ boot: 'dst' });
    target.adopt('A', source.handoff('A'));
    expect(target.publish('A', { type: 'y', data: {} }).id).toBe('dst-6');
    // A client that had seen src-3 on the old instance gets src-4, src-5 and dst-6, nothing twice.
    expect(collect(target, 'A', 'src-3').sub.replay).toEqual({
      kind: 'events',
      events: [
        { id: 'src-4', type: 'x', data: { i: 3 } },
        { id: 'src-5', type: 'x', data: { i: 4 } },
        { id: 'dst-6', type: 'y', data: {} },
      ],
    });
    expect(collect(target, 'A', 'dst-6').sub.replay).toEqual({ kind: 'events', events: [] });
    // An id the old instance never gave out, or one of an unknown boot: refetch.
    expect(collect(target, 'A', 'src-9').sub.replay).toEqual({ kind: 'resync', id: 'dst-6' });
    expect(collect(target, 'A', 'other-1').sub.replay).toEqual({ kind: 'resync', id: 'dst-6' });
    // Moved on again: the first instance's ids still resume on the third.
    const third = new EventHub({ boot: 'third' });
    third.adopt('A', target.handoff('A'));
    expect(collect(third, 'A', 'src-5').sub.replay).toMatchObject({ kind: 'events', events: [{ id: 'dst-6' }] });
  });

  it('disconnect ends every open stream of that user only, with the reason', () => {
    const hub = new EventHub({ boot: 'b1' });
    const ended: string[] = [];
    hub.subscribe('A', () => {}, null, undefined, (reason) => ended.push(`A:${reason}`));
    hub.subscribe('B', () => {}, null, undefined, (reason) => ended.push(`B:${reason}`));
    hub.disconnect('A', 'frozen');
    expect(ended).toEqual(['A:frozen']);
  });
});
