import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { expectNowhereOnDisk } from '../e2e/fixtures/secrets-on-disk.js';

// Issue 27 item 1, its last part: the large texts of a proxied request are redacted in the
// server's background thread, not on the thread that serves every user. Read from the thread's
// own count of the jobs it answered (and which thread answered them), not from a clock: a base64
// text document (an attachment of the session, redacted as a file) and a large message.
const root = mkdtempSync(join(tmpdir(), 'large-document-redaction-'));
process.env.OPENPROGRAM_DATA_DIR = join(root, 'data');

const ANTHROPIC = `sk-ant-api03-${'a1B2c3D4'.repeat(4)}`;
const GITHUB = `ghp_${'x9Y8z7W6'.repeat(4)}abcd`;
const USER = '0123456789abcdef';
const MB = 1024 * 1024;

/** PEM headers without their END (the costliest text to redact per byte), a secret at each end. */
function pemText(bytes: number, secret: string): string {
  const block = 'agent log line\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n';
  return Buffer.from(`token ${secret}\n${block.repeat(Math.ceil(bytes / block.length))}end ${secret}\n`).toString();
}

afterAll(async () => {
  const { closeUserStore } = await import('../server/runtime.js');
  await closeUserStore(USER);
  rmSync(root, { recursive: true, force: true });
});

describe("a proxied request's large texts are redacted in the background thread (issue 27 item 1)", () => {
  it('a 2 MiB base64 text document and a 1 MiB message: redacted by the thread, stored redacted, no secret on disk', async () => {
    const { recordExchangeNow } = await import('../server/proxy/recorder.js');
    const { getUserStore } = await import('../server/runtime.js');
    const { backgroundCounts, warmBackgroundThread } = await import('../server/background/background-thread.js');
    warmBackgroundThread();
    const counts = backgroundCounts();
    const before = { thread: { ...counts.thread }, here: { ...counts.here } };

    const document = Buffer.from(pemText(2 * MB, ANTHROPIC)).toString('base64');
    const content = [
      { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: document } },
      { type: 'text', text: pemText(MB, GITHUB) },
    ];
    const request = Buffer.from(JSON.stringify({ model: 'claude-test', max_tokens: 10, tools: [{ name: 'Read' }], messages: [{ role: 'user', content }] }));
    const answer = Buffer.from(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'read it' }], stop_reason: 'end_turn' }));
    const summary = await recordExchangeNow({
      userId: USER,
      wire: 'anthropic',
      upstream: 'anthropic',
      headers: { 'x-entity-memory-session': 'big-document' },
      body: request,
      bodyBytes: request.length,
      status: 200,
      contentType: 'application/json',
      bytes: answer,
      outcome: 'complete',
      endedAt: performance.now(),
    });
    expect(summary).toMatchObject({ sessionId: 'big-document', outcome: 'complete' });

    // The document as a file, the message with the rest of the turn: both by the thread, none here.
    expect(counts.thread['redact-bytes'] - before.thread['redact-bytes']).toBe(1);
    expect(counts.thread.redact - before.thread.redact).toBeGreaterThanOrEqual(1);
    expect(counts.here).toEqual(before.here);
    expect(counts.threadIds.size).toBeGreaterThan(0);
    expect(counts.threadIds.has(threadId)).toBe(false);

    const store = await getUserStore(USER);
    const [user] = await store.getBranch('big-document');
    expect(user!.content.startsWith('token [REDACTED:github]\n')).toBe(true);
    const [attachment] = user!.metadata['attachments'] as { name: string }[];
    const stored = readFileSync((await store.resolveAttachment('big-document', attachment!.name)).path, 'utf8');
    expect(stored.startsWith('token [REDACTED:anthropic]\n')).toBe(true);
    await store.flush();
    await expectNowhereOnDisk([ANTHROPIC, GITHUB, 'BEGIN RSA PRIVATE KEY'], { root: join(root, 'data') });
  }, 300_000);
});
