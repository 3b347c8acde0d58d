import { describe, expect, it } from 'vitest';
import { fingerprints } from './fingerprint';
import { IDENTITY_HEADERS, overLimitSessionId, planExchange, type ExchangeBytes } from './plan';

const reply = Buffer.from(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' }));
const exchange = (body: unknown, headers: Record<string, string | null> = {}): ExchangeBytes => ({
  wire: 'anthropic',
  upstream: 'anthropic',
  headers,
  body: body === null ? null : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  contentType: 'application/json',
  bytes: reply,
  outcome: 'complete',
});

describe('planning an exchange (what the planning thread does)', () => {
  it('reads the conversation, its fingerprints from the start and the reply', () => {
    const plan = planExchange(exchange({ model: 'm', system: 'sys', tools: [{ name: 'Write' }], messages: [{ role: 'user', content: 'hi' }] }));
    expect(plan.record).toBe(true);
    expect(plan.sessionId).toBeNull();
    expect(plan.parsed!.steps).toEqual([{ role: 'user', text: 'hi', media: [], reminders: [] }]);
    expect(plan.fingerprints).toEqual(fingerprints(plan.parsed!.steps));
    expect(plan.reply).toMatchObject({ id: 'msg_1', text: 'hello' });
    expect(plan.replyFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.replyFingerprint).not.toBe(plan.fingerprints[0]);
  });

  it('takes the session from the headers; skips Claude Code side calls without tools and bodies that are no JSON', () => {
    expect(planExchange(exchange({ model: 'm', tools: [{ name: 'W' }], messages: [{ role: 'user', content: 'x' }] }, { 'x-claude-code-session-id': 'abc' }))).toMatchObject({ record: true, sessionId: 'cc-abc', agent: 'claude-code' });
    expect(planExchange(exchange({ model: 'm', messages: [{ role: 'user', content: 'title?' }] }, { 'x-claude-code-session-id': 'abc' })).record).toBe(false);
    expect(planExchange(exchange('{not json')).record).toBe(false);
  });

  it('places a request over the limit in the session the headers name, else in one session per upstream', () => {
    expect(planExchange(exchange(null, { 'session-id': 'c1' }))).toMatchObject({ record: true, sessionId: 'codex-c1', parsed: null });
    const unnamed = planExchange(exchange(null));
    expect(unnamed).toMatchObject({ record: true, sessionId: overLimitSessionId('anthropic'), parsed: null, reply: null });
    expect(overLimitSessionId('anthropic')).toMatch(/^px-[0-9a-f]{32}$/);
    expect(overLimitSessionId('work')).not.toBe(overLimitSessionId('anthropic'));
  });

  it('a 200 whose stream ends in an error event is planned as error_event, not complete (the turn is recorded as failed)', () => {
    const request = { model: 'm', tools: [{ name: 'W' }], messages: [{ role: 'user', content: 'hi' }] };
    const sse = (events: [string, unknown][]) => Buffer.from(events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
    const started: [string, unknown][] = [
      ['message_start', { type: 'message_start', message: { id: 'msg_e', type: 'message', role: 'assistant', model: 'm', content: [] } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half' } }],
    ];
    const failed = planExchange({ ...exchange(request), contentType: 'text/event-stream', bytes: sse([...started, ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]]) });
    expect(failed).toMatchObject({ record: true, outcome: 'error_event', reply: { text: 'Half', error: 'Overloaded' } });
    // the same stream without the error event stays complete; forwarding's own outcomes are kept
    expect(planExchange({ ...exchange(request), contentType: 'text/event-stream', bytes: sse(started) }).outcome).toBe('complete');
    expect(planExchange(exchange(request)).outcome).toBe('complete');
    expect(planExchange({ ...exchange(request), outcome: 'client_gone', contentType: 'text/event-stream', bytes: sse(started) }).outcome).toBe('client_gone');
  });

  it('an exchange whose terminal event arrived is complete, whoever closed first (issue 28: Codex hangs up on response.completed)', () => {
    const request = { model: 'm', input: 'hi' };
    const sse = (events: [string, unknown][]) => Buffer.from(events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
    const response = { id: 'resp_1', object: 'response', status: 'completed', model: 'm', output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done', annotations: [] }] }] };
    const whole = sse([['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }], ['response.completed', { type: 'response.completed', response }]]);
    const cut = sse([['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }], ['response.output_text.delta', { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', delta: 'Do' }]]);
    const responses = (bytes: Buffer, outcome: ExchangeBytes['outcome'], truncated?: boolean): ExchangeBytes => ({ ...exchange(request), wire: 'responses', upstream: 'openai', contentType: 'text/event-stream', bytes, outcome, ...(truncated ? { truncated } : {}) });
    for (const closedFirst of ['client_gone', 'timeout', 'deadline'] as const) {
      expect(planExchange(responses(whole, closedFirst)).outcome, closedFirst).toBe('complete');
      expect(planExchange(responses(cut, closedFirst)).outcome, closedFirst).toBe(closedFirst);
    }
    // an answer the copy cut off is not known whole, whatever its bytes end with
    expect(planExchange(responses(whole, 'client_gone', true)).outcome).toBe('client_gone');
  });

  it('names only the headers that say which session and agent (no key leaves the request path)', () => {
    expect(IDENTITY_HEADERS).not.toContain('authorization');
    expect(IDENTITY_HEADERS).not.toContain('x-api-key');
    expect(IDENTITY_HEADERS).not.toContain('x-entity-memory-token');
  });
});
