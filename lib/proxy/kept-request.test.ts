import { describe, expect, it } from 'vitest';
import { bodyToResend, keepRequest, readKeptRequest } from './kept-request';

describe('the request kept for a retry through the upstream', () => {
  it('keeps the body less its system prompt, which goes back where it stood', () => {
    const body = { model: 'm', system: [{ type: 'text', text: 'be brief' }], tools: [{ name: 'Write' }], messages: [{ role: 'user', content: 'hi' }] };
    const kept = keepRequest('anthropic', body, 100)!;
    expect(kept).toEqual({ body: { model: 'm', tools: [{ name: 'Write' }], messages: [{ role: 'user', content: 'hi' }] }, systemField: 'system', systemShape: { blocks: [{ type: 'text' }], lengths: [8] } });
    // Sent again as it came: blocks stay blocks (system-shape.ts).
    expect(bodyToResend(readKeptRequest(JSON.parse(JSON.stringify(kept)))!, 'be brief')).toEqual({ ...kept.body, system: [{ type: 'text', text: 'be brief' }] });
    expect(bodyToResend(keepRequest('anthropic', { model: 'm', system: 'plain' }, 10)!, 'plain')).toEqual({ model: 'm', system: 'plain' });
    const responses = keepRequest('responses', { model: 'm', instructions: 'x', input: 'hi' }, 10)!;
    expect(bodyToResend(responses, 'x')).toEqual({ model: 'm', instructions: 'x', input: 'hi' });
    // Chat Completions: the system prompt is one of the messages, kept with them.
    expect(keepRequest('chat', { model: 'm', messages: [{ role: 'system', content: 's' }] }, 10)).toEqual({ body: { model: 'm', messages: [{ role: 'system', content: 's' }] }, systemField: null });
  });

  it('keeps nothing past the limit, nor what is no JSON object', () => {
    expect(keepRequest('anthropic', { model: 'm' }, 2000, 1000)).toBeNull();
    expect(keepRequest('anthropic', [1], 10)).toBeNull();
    expect(readKeptRequest({ body: [], systemField: null })).toBeNull();
    expect(readKeptRequest(undefined)).toBeNull();
    // Base64 media: a secret under the encoding is out of the redactor's sight, so the request is not kept.
    const document = { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: 'c2VjcmV0' } };
    expect(keepRequest('anthropic', { model: 'm', messages: [{ role: 'user', content: [document] }] }, 10)).toBeNull();
    expect(keepRequest('chat', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] }, 10)).toBeNull();
    expect(keepRequest('responses', { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'AAAA' }] }] }, 10)).toBeNull();
  });
});
