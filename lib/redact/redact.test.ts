import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mayHoldSecret, redactMessage, redactText, redactValue } from './redact.js';

// Invented secrets of each provider's shape (none is real; the AWS ones avoid the documented
// examples, which secretlint deliberately lets through).
const SECRETS: Record<string, string> = {
  openai: `sk-proj-${'Ab1'.repeat(24)}xyT3BlbkFJ${'Cd2'.repeat(24)}zw`,
  anthropic: `sk-ant-api03-${'Zx9_'.repeat(23)}qAA`,
  github: `ghp_${'R4nd0mT0k3n'.repeat(3)}abc`,
  aws: 'AKIAZ7Q3X5W2R4T6Y8U1',
  google: `AIza${'SyB3k9'.repeat(5)}Q1w2e`,
  slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  stripe: `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
};

const PEM = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAx8mH3Yq0b6Xh0n6bqVh7b2Fj1Z9Kq', 'c2VjcmV0IGtleSBtYXRlcmlhbCBnb2VzIGhlcmU=', '-----END RSA PRIVATE KEY-----'].join('\n');

describe('redactText', () => {
  // Issue 27 item 1: every header used to rescan the rest of the text for an END (minutes for 4 MB).
  it('redacts megabytes of PEM headers with no END in one pass, each header and its base64 tail', () => {
    const header = '-----BEGIN RSA PRIVATE KEY-----\n';
    const result = redactText(header.repeat(131072));
    expect(result.count).toBe(131072);
    expect(result.text).toBe('[REDACTED:private-key]'.repeat(131072));
    const mixed = redactText(`${header}MIIEow==\n-----END RSA PRIVATE KEY-----\n${header.repeat(3)}tail`);
    expect(mixed.text).toBe(`[REDACTED:private-key]\n${'[REDACTED:private-key]'.repeat(3)}`);
  });

  for (const [kind, secret] of Object.entries(SECRETS)) {
    it(`replaces a ${kind} secret with [REDACTED:${kind}]`, () => {
      const result = redactText(`here it is: ${secret} — keep it safe`);
      expect(result.text).toBe(`here it is: [REDACTED:${kind}] — keep it safe`);
      expect(result.count).toBe(1);
      expect(result.kinds).toEqual([kind]);
    });
  }

  it('replaces a whole PEM private key block, however short', () => {
    const result = redactText(`key:\n${PEM}\nend`);
    expect(result.text).toBe('key:\n[REDACTED:private-key]\nend');
    expect(result.kinds).toEqual(['private-key']);
  });

  it('replaces a PEM block whose end was cut off', () => {
    const result = redactText(`-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC`);
    expect(result.text).toBe('[REDACTED:private-key]');
  });

  it('replaces Authorization header values, keeping the header name', () => {
    expect(redactText('curl -H "Authorization: Bearer abc.def-123456" https://x').text).toBe('curl -H "Authorization: [REDACTED:authorization]" https://x');
    expect(redactText('authorization=Basic dXNlcjpwYXNzd29yZA==').text).toBe('authorization=[REDACTED:authorization]');
    expect(redactText('x-api-key: 0123456789abcdef').text).toBe('x-api-key: [REDACTED:authorization]');
  });

  it('counts every secret and names each kind once', () => {
    const result = redactText(`${SECRETS['aws']} and ${SECRETS['github']} and ${SECRETS['aws']}`);
    expect(result.count).toBe(3);
    expect(result.kinds).toEqual(['aws', 'github']);
  });

  it('leaves ordinary text alone, including the word "token" and short sk- strings', () => {
    const text = 'The token count was 36190; sk-learn is a library; AKIA is a prefix; eyes.everywhere.';
    expect(redactText(text)).toEqual({ text, count: 0, kinds: [] });
  });
});

describe('redactValue and redactMessage', () => {
  it('redacts strings at any depth, and header objects by their key', () => {
    const result = redactValue({ cmd: ['echo', SECRETS['stripe']], headers: { Authorization: 'Bearer short' }, n: 3 });
    expect(result.value).toEqual({ cmd: ['echo', '[REDACTED:stripe]'], headers: { Authorization: '[REDACTED:authorization]' }, n: 3 });
    expect(result.count).toBe(2);
  });

  it('returns the same object when nothing is found', () => {
    const value = { a: 'plain', b: [1, 2] };
    expect(redactValue(value).value).toBe(value);
  });

  it('redacts content, input and metadata of a message and keeps the rest', () => {
    const message = { role: 'tool' as const, content: { stdout: SECRETS['anthropic'] }, input: { env: `KEY=${SECRETS['openai']}` }, metadata: { note: 'fine' }, calledBy: 'a1' };
    const result = redactMessage(message);
    expect(result.count).toBe(2);
    expect(result.message).toEqual({ ...message, content: { stdout: '[REDACTED:anthropic]' }, input: { env: 'KEY=[REDACTED:openai]' } });
    expect(JSON.stringify(result.message)).not.toContain('sk-');
  });
});

/** What redactValue must give: each string scanned alone (the walk before the joined pre-scan). */
function redactEachString(value: unknown): { value: unknown; count: number } {
  let count = 0;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') {
      const result = redactText(item);
      count += result.count;
      return result.text;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(item)) {
        const name = redactText(key);
        count += name.count;
        if (typeof inner === 'string' && /^(?:proxy-)?authorization$|^x-api-key$/i.test(key) && inner.length > 0 && !inner.startsWith('[REDACTED:')) {
          count++;
          out[name.text] = '[REDACTED:authorization]';
        } else out[name.text] = walk(inner);
      }
      return out;
    }
    return item;
  };
  const redacted = walk(value);
  return { value: count === 0 ? value : redacted, count };
}

describe('redactValue joins its strings for one scan', () => {
  // Secrets whole and cut, PEM ends apart, header names, and text that sits next to them.
  const pieces = [
    ...Object.values(SECRETS),
    ...Object.values(SECRETS).map((secret) => secret.slice(0, Math.ceil(secret.length / 2))),
    ...Object.values(SECRETS).map((secret) => secret.slice(Math.floor(secret.length / 2))),
    PEM,
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx8mH3Yq0b6Xh0n6bqVh7b2Fj1Z9Kq',
    '-----END RSA PRIVATE KEY-----',
    'Authorization: Bearer ',
    'x-api-key=',
    'https://user:',
    'p4ssw0rd-long@db.example.com/x',
    'postgres://admin:s3cretpass@10.0.0.1:5432/app',
    'plain words of a message',
    '0123456789abcdef0123456789abcdef',
    '"',
    ' ',
    '\n',
  ];
  const text = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 12 })), { maxLength: 4 }).map((parts) => parts.join(''));
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), tie('list'), tie('object')),
    list: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(text, fc.constantFrom('Authorization', 'x-api-key', 'content')), tie('value'), { maxKeys: 4 }),
  })).value;

  it('finds exactly what a scan of each string finds', () => {
    fc.assert(
      fc.property(json, (value) => {
        const joined = redactValue(value);
        const each = redactEachString(value);
        expect(joined.count).toBe(each.count);
        expect(joined.value).toEqual(each.value);
      }),
      { numRuns: 400 },
    );
  });

  it('finds a secret split from its neighbours only by the string boundary', () => {
    const value = { a: 'ghp_', b: `${SECRETS['github']}`, c: ['Authorization:', 'Bearer abcdefgh123'] };
    expect(redactValue(value)).toMatchObject(redactEachString(value));
    expect(redactValue(value).count).toBeGreaterThan(0);
  });
});

describe('mayHoldSecret', () => {
  it('answers for many messages at once: false only when none holds a secret', () => {
    const clean = Array.from({ length: 50 }, (_, i) => ({ content: `message ${i} about parsing`, metadata: { uuid: `id-${i}-0000` } }));
    expect(mayHoldSecret(clean)).toBe(false);
    expect(mayHoldSecret([...clean, { content: [{ input: { env: `KEY=${SECRETS['github']}` } }] }])).toBe(true);
    expect(mayHoldSecret([{ headers: { Authorization: 'x' } }])).toBe(true);
  });
});
