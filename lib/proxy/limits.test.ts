import { describe, expect, it } from 'vitest';
import { boundReply, DEFAULT_EXCHANGE_DEADLINE_MS, DEFAULT_MAX_OPEN_EXCHANGES_PER_USER, exchangeDeadlineMs, ExchangeSlots, maxOpenExchangesPerUser, REPLY_METADATA_RESERVE_BYTES } from './limits';
import { emptyReply, type AssembledReply } from './types';

describe('ExchangeSlots: open exchanges per user (issue 27 item 3)', () => {
  it('admits up to the cap per user, refuses past it, and never counts one user against another', () => {
    const slots = new ExchangeSlots(() => 3);
    const a = [slots.open('a'), slots.open('a'), slots.open('a')];
    expect(a.every((release) => typeof release === 'function')).toBe(true);
    expect(slots.open('a')).toBeNull();
    expect(slots.count('a')).toBe(3);
    // another user is not held by a's slots
    const b = slots.open('b');
    expect(b).not.toBeNull();
    expect(slots.count('b')).toBe(1);
    // a release frees exactly one slot, however often it is called
    a[0]!();
    a[0]!();
    expect(slots.count('a')).toBe(2);
    const again = slots.open('a');
    expect(again).not.toBeNull();
    expect(slots.open('a')).toBeNull();
    for (const release of [a[1], a[2], again, b]) release!();
    expect(slots.count('a')).toBe(0);
    expect(slots.count('b')).toBe(0);
  });

  it('reads the cap at each admission (a lowered cap applies to the next exchange)', () => {
    let cap = 2;
    const slots = new ExchangeSlots(() => cap);
    const first = slots.open('a')!;
    slots.open('a');
    cap = 1;
    first();
    expect(slots.open('a')).toBeNull();
  });

  it('takes the cap and the deadline from the environment, whole positive numbers only', () => {
    expect(maxOpenExchangesPerUser({})).toBe(DEFAULT_MAX_OPEN_EXCHANGES_PER_USER);
    expect(DEFAULT_MAX_OPEN_EXCHANGES_PER_USER).toBe(32);
    expect(maxOpenExchangesPerUser({ OPENPROGRAM_PROXY_MAX_OPEN_PER_USER: '5' })).toBe(5);
    for (const bad of ['0', '-3', '1.5', 'many', '', ' ']) expect(maxOpenExchangesPerUser({ OPENPROGRAM_PROXY_MAX_OPEN_PER_USER: bad }), bad).toBe(32);
    expect(exchangeDeadlineMs({})).toBe(DEFAULT_EXCHANGE_DEADLINE_MS);
    expect(exchangeDeadlineMs({ OPENPROGRAM_PROXY_DEADLINE_MS: '2500' })).toBe(2500);
    expect(exchangeDeadlineMs({ OPENPROGRAM_PROXY_DEADLINE_MS: 'soon' })).toBe(DEFAULT_EXCHANGE_DEADLINE_MS);
  });
});

const size = (reply: AssembledReply) =>
  Buffer.byteLength(reply.text) + (reply.thinking.length ? Buffer.byteLength(JSON.stringify(reply.thinking)) : 0) + (reply.toolCalls.length ? Buffer.byteLength(JSON.stringify(reply.toolCalls)) : 0);

describe('boundReply: a recorded reply fits one message (issue 27 item 2)', () => {
  const limit = 64 * 1024 + REPLY_METADATA_RESERVE_BYTES;
  const budget = limit - REPLY_METADATA_RESERVE_BYTES;

  it('leaves a reply within the limit as it is', () => {
    const reply = { ...emptyReply(), text: 'short', toolCalls: [{ id: 'c', name: 'ls', arguments: '{}' }] };
    expect(boundReply(reply, limit)).toEqual({ reply, truncated: false });
  });

  it('cuts the text of a reply over the limit to a prefix, on a character, and says so', () => {
    const text = 'é✓😀x'.repeat(40_000);
    const { reply, truncated } = boundReply({ ...emptyReply(), text, model: 'm', finished: true }, limit);
    expect(truncated).toBe(true);
    expect(size(reply)).toBeLessThanOrEqual(budget);
    expect(size(reply)).toBeGreaterThan(budget - 8);
    expect(text.startsWith(reply.text)).toBe(true);
    expect(reply.text).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(reply.model).toBe('m');
  });

  it('cuts thinking and tool-call arguments too when they are what is large, escapes counted', () => {
    const quoted = '"\\\n'.repeat(60_000); // JSON doubles each of these
    const input: AssembledReply = { ...emptyReply(), text: 'answer', thinking: [{ text: quoted, signature: 'sig' }], toolCalls: [{ id: 'c1', name: 'Write', arguments: JSON.stringify({ content: quoted }) }] };
    const { reply, truncated } = boundReply(input, limit);
    expect(truncated).toBe(true);
    expect(size(reply)).toBeLessThanOrEqual(budget);
    expect(reply.text).toBe('answer');
    expect(input.thinking[0]!.text).toBe(quoted); // the input is not changed
    if (reply.thinking[0]) expect(quoted.startsWith(reply.thinking[0].text)).toBe(true);
  });

  it('a limit below the reserve leaves an empty reply, still marked', () => {
    const { reply, truncated } = boundReply({ ...emptyReply(), text: 'x'.repeat(100), thinking: [{ text: 'y' }], toolCalls: [{ id: 'c', name: 'n', arguments: '{}' }] }, 10);
    expect(truncated).toBe(true);
    expect(size(reply)).toBe(0);
  });
});
