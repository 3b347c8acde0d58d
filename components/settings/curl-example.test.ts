import { describe, expect, it } from 'vitest';
import { curlExample } from './curl-example';

describe('curlExample', () => {
  it('fills in the token and the origin, without a trailing slash', () => {
    const text = curlExample({ origin: 'https://memory.example.org/', token: 'em_abc' });
    expect(text).toContain("TOKEN='em_abc'");
    expect(text).toContain("BASE='https://memory.example.org'");
    for (const step of ['session.create', 'turn.begin', 'message.append', 'turn.finalize']) expect(text).toContain(`call ${step} `);
  });
});
