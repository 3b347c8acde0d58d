import { describe, expect, it } from 'vitest';
import { redactMessage, redactText, redactValue } from './redact.js';

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
