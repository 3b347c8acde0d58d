import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Redactor } from '../types.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

// A stand-in rule (the real ones live in lib/redact, above the store): every "SECRET-<n>" goes.
const redactor: Redactor = (message) => {
  let count = 0;
  const json = JSON.stringify({ content: message.content, input: message.input, metadata: message.metadata }).replace(/SECRET-\d+/g, () => {
    count++;
    return '[REDACTED:test]';
  });
  const parts = JSON.parse(json) as typeof message;
  return { message: { ...message, content: parts.content, ...(message.input !== undefined ? { input: parts.input } : {}), ...(message.metadata !== undefined ? { metadata: parts.metadata } : {}) }, count };
};

describe('redaction on append', () => {
  const open = tempStoresPerTest();

  it('writes the redacted message and counts what was taken out in meta.json and session.get', async () => {
    const { store, dir } = await open({ redactor });
    await store.createSession({ id: 's' });
    const user = await store.appendMessage('s', { role: 'user', content: 'my key is SECRET-1 and SECRET-2' });
    expect(user.content).toBe('my key is [REDACTED:test] and [REDACTED:test]');
    await store.appendMessage('s', { role: 'tool', calledBy: user.id, content: { out: 'SECRET-3' }, input: { arg: 'x' } });
    expect((await store.getSession('s')).redacted).toBe(3);
    const meta = JSON.parse(readFileSync(join(dir, 'sessions', 's', 'meta.json'), 'utf8')) as { redacted: number };
    expect(meta.redacted).toBe(3);
  });

  it('is switchable at run time: off writes the text as given and counts nothing', async () => {
    const { store } = await open({ redactor });
    await store.createSession({ id: 's' });
    store.setRedactor(null);
    expect((await store.appendMessage('s', { role: 'user', content: 'SECRET-9' })).content).toBe('SECRET-9');
    expect((await store.getSession('s')).redacted).toBe(0);
    store.setRedactor(redactor);
    expect((await store.appendMessage('s', { role: 'user', content: 'SECRET-9' })).content).toBe('[REDACTED:test]');
    expect((await store.getSession('s')).redacted).toBe(1);
  });

  it('a retried append of the same secret is the same message, counted once', async () => {
    const { store } = await open({ redactor });
    await store.createSession({ id: 's' });
    await store.appendMessage('s', { id: 'm1', role: 'user', content: 'SECRET-1' });
    await store.appendMessage('s', { id: 'm1', role: 'user', content: 'SECRET-1' });
    expect((await store.getSession('s')).redacted).toBe(1);
  });

  it('takes secrets out of an uploaded text file before it is written (a document sent as base64 is one), leaves binary files as they are', async () => {
    const { store, dir } = await open({ redactor });
    await store.createSession({ id: 'f' });
    const text = await store.saveAttachment('f', { name: 'notes.txt', data: Buffer.from('line one\nthe key: SECRET-7\n'), mime: 'text/plain' });
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, ...Buffer.from('SECRET-8')]);
    const image = await store.saveAttachment('f', { name: 'pic.png', data: binary, mime: 'image/png' });
    expect(readFileSync(text.path, 'utf8')).toBe('line one\nthe key: [REDACTED:test]\n');
    expect(readFileSync(image.path).equals(binary)).toBe(true);
    await store.appendMessage('f', { role: 'user', content: `see ${text.id}`, metadata: { attachments: [{ id: text.id, name: text.name }] } });
    expect((await store.getSession('f')).redacted).toBe(1);
    expect((JSON.parse(readFileSync(join(dir, 'sessions', 'f', 'meta.json'), 'utf8')) as { redacted: number }).redacted).toBe(1);
  });
});
