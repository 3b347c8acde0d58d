import { describe, expect, it } from 'vitest';
import { planExchange, type ExchangeBytes } from './plan';
import { REPLY_METADATA_RESERVE_BYTES } from './limits';

/** A streamed Anthropic answer of `textBytes` of text, as the proxy keeps it. */
function bigAnswer(textBytes: number): ExchangeBytes {
  const piece = 'abcdefghij'.repeat(6_554);
  const events = [`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`];
  for (let sent = 0; sent < textBytes; sent += piece.length) events.push(`event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } })}\n\n`);
  events.push('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  return {
    wire: 'anthropic',
    upstream: 'anthropic',
    headers: { 'x-entity-memory-session': 's1' },
    body: Buffer.from(JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'W' }], messages: [{ role: 'user', content: 'hi' }] })),
    contentType: 'text/event-stream',
    bytes: Buffer.from(events.join('')),
    outcome: 'complete',
  };
}

describe('planExchange cuts the reply to one message (issue 27: not on the request thread)', () => {
  it('with maxReplyBytes the planned reply fits it and says so; its fingerprint and outcome are the whole reply’s', () => {
    const exchange = bigAnswer(4 * 1024 * 1024);
    const whole = planExchange(exchange);
    const limit = 1024 * 1024;
    const cut = planExchange({ ...exchange, maxReplyBytes: limit });
    expect(whole.reply!.text.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(Buffer.byteLength(cut.reply!.text)).toBeLessThanOrEqual(limit - REPLY_METADATA_RESERVE_BYTES);
    expect(whole.reply!.text.startsWith(cut.reply!.text)).toBe(true);
    expect(cut.replyCut).toBe(true);
    expect(cut.replyFingerprint).toBe(whole.replyFingerprint);
    expect(cut.outcome).toBe('complete');
  });

  it('a reply within the limit is left as it is', () => {
    const exchange = bigAnswer(10_000);
    const planned = planExchange({ ...exchange, maxReplyBytes: 1024 * 1024 });
    expect(planned.reply).toEqual(planExchange(exchange).reply);
    expect(planned.replyCut).toBe(false);
  });
});
