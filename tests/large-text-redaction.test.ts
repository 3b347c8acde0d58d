import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { loopBlockDuring } from '../bench/registry-bench.js';
import { expectNowhereOnDisk } from '../e2e/fixtures/secrets-on-disk.js';
import { redactMessage } from '../lib/redact/index.js';

// Issue 27 item 1, its last part: a large text is redacted off the event loop. A large text of
// PEM headers with secrets is recorded through the proxy's recorder and imported, as the server
// does both (its redactor, its background thread), while the event loop's delay is measured.
// 4 MiB of dense PEM headers: the costliest text to redact per byte.
// Inline, the same redaction holds the loop for its whole length: that is the baseline,
// measured here on this machine, and the loop must stay well under it.
const root = mkdtempSync(join(tmpdir(), 'large-redaction-'));
process.env.OPENPROGRAM_DATA_DIR = join(root, 'data');

const ANTHROPIC = `sk-ant-api03-${'a1B2c3D4'.repeat(4)}`;
const GITHUB = `ghp_${'x9Y8z7W6'.repeat(4)}abcd`;
const AWS = 'AKIAZ3MHHNE4XQ7TB2PL';
const USER = '0123456789abcdef';
const BYTES = 4 * 1024 * 1024;

/**
 * 4 MiB: PEM headers without their END, one every other line (the input of `redact_ms_1mb_pem`,
 * the costliest to redact per byte), a log line between them, a secret at the start, middle and end.
 */
function largeText(): string {
  const block = 'agent log line\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n';
  const body = block.repeat(Math.ceil(BYTES / 2 / block.length));
  // Flat, as JSON.parse gives it (a string built by repeat is a rope, flattened at every copy).
  return Buffer.from(`token ${ANTHROPIC}\n${body}github ${GITHUB}\n${body}aws ${AWS}\n`).toString();
}

/** A finished Messages exchange whose user message is `content`, recorded as the proxy's recorder does. */
async function recordProxied(sessionId: string, content: unknown, replyText: string) {
  const { recordExchangeNow } = await import('../server/proxy/recorder.js');
  const request = Buffer.from(JSON.stringify({ model: 'claude-test', max_tokens: 10, tools: [{ name: 'Read' }], messages: [{ role: 'user', content }] }));
  const answer = Buffer.from(JSON.stringify({ id: `msg_${sessionId}`, type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: replyText }], stop_reason: 'end_turn' }));
  const headers = { 'x-entity-memory-session': sessionId };
  return recordExchangeNow({ userId: USER, wire: 'anthropic', upstream: 'anthropic', headers, body: request, bodyBytes: request.length, status: 200, contentType: 'application/json', bytes: answer, outcome: 'complete', endedAt: performance.now() });
}

afterAll(async () => {
  const { closeUserStore } = await import('../server/runtime.js');
  await closeUserStore(USER);
  rmSync(root, { recursive: true, force: true });
});

describe('a large text with secrets is redacted off the event loop (issue 27 item 1)', () => {
  it('through the proxy and an import: the loop stays well under what inline redaction holds it, and no secret reaches disk', async () => {
    // Loaded before the loop is measured (recordProxied imports it).
    await import('../server/proxy/recorder.js');
    const { getUserStore } = await import('../server/runtime.js');
    const { warmBackgroundThread } = await import('../server/background/background-thread.js');
    const text = largeText();
    // The thread loads while the baseline runs; a redaction would wait for it anyway.
    warmBackgroundThread();
    let inline = 0;
    const inlineDelay = await loopBlockDuring(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const started = performance.now();
      const redacted = redactMessage({ content: text });
      inline = performance.now() - started;
      expect(redacted.count).toBeGreaterThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    expect(inlineDelay).toBeGreaterThanOrEqual(inline * 0.9);

    let summary: Awaited<ReturnType<typeof recordProxied>> = null;
    const proxyDelay = await loopBlockDuring(async () => {
      summary = await recordProxied('big-proxied', text, `noted, key ${ANTHROPIC}`);
    });
    expect(summary).toMatchObject({ sessionId: 'big-proxied', outcome: 'complete' });

    const store = await getUserStore(USER);
    const importDelay = await loopBlockDuring(async () => {
      await store.importSession({
        id: 'big-imported',
        source: 'claude-code',
        turns: [[{ id: 'u1', createdAt: 1_800_000_000, role: 'user', content: text, parentId: null }], [{ id: 'a1', createdAt: 1_800_000_001, role: 'assistant', content: 'ok', parentId: 'u1' }]],
      });
    });
    console.log(`4 MiB with ${text.split('BEGIN').length - 1} PEM headers: inline redaction ${inline.toFixed(0)} ms; loop held at most ${proxyDelay.toFixed(0)} ms recording it through the proxy, ${importDelay.toFixed(0)} ms importing it`);
    // What is left on the loop is copying (the node file, its git object, the copy to the thread): memcpy-fast, not a scan.
    expect(proxyDelay).toBeLessThan(inline / 2);
    expect(importDelay).toBeLessThan(inline / 2);

    // Redacted on disk all the same: the node files, meta.json, the registry and every git object.
    const [proxied, imported] = await Promise.all([store.getBranch('big-proxied'), store.getBranch('big-imported')]);
    expect(proxied[0]!.content.startsWith('token [REDACTED:anthropic]\n')).toBe(true);
    expect(proxied[1]!.content).toBe('noted, key [REDACTED:anthropic]');
    // The last header has no END: the truncated block it starts runs over the base64-like words after it, the key among them.
    expect(imported[0]!.content.endsWith('[REDACTED:private-key]')).toBe(true);
    expect((await store.getSession('big-imported')).redacted).toBeGreaterThan(1000);
    await store.flush();
    const scan = await expectNowhereOnDisk([ANTHROPIC, GITHUB, AWS, 'BEGIN RSA PRIVATE KEY'], { root: join(root, 'data') });
    expect(scan.repos.length).toBeGreaterThanOrEqual(2);
  }, 300_000);

  // Read from the thread's own count of the jobs it answered (and which thread answered them), not from a clock.
  it("a proxied request's base64 text document and large message are redacted by the background thread, stored redacted", async () => {
    const { getUserStore } = await import('../server/runtime.js');
    const { backgroundCounts, warmBackgroundThread } = await import('../server/background/background-thread.js');
    warmBackgroundThread();
    const counts = backgroundCounts();
    const before = { thread: { ...counts.thread }, here: { ...counts.here } };
    const text = largeText();
    // The document becomes an attachment of the session, redacted as a file; the message as a step.
    const content = [
      { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: Buffer.from(text).toString('base64') } },
      { type: 'text', text: `message ${GITHUB}\n${text.slice(0, 1024 * 1024)}` },
    ];
    const summary = await recordProxied('big-document', content, 'read it');
    expect(summary).toMatchObject({ sessionId: 'big-document', outcome: 'complete' });
    expect(counts.thread['redact-bytes'] - before.thread['redact-bytes']).toBe(1);
    expect(counts.thread.redact - before.thread.redact).toBeGreaterThanOrEqual(1);
    expect(counts.here).toEqual(before.here);
    expect(counts.threadIds.size).toBeGreaterThan(0);
    expect(counts.threadIds.has(threadId)).toBe(false);

    const store = await getUserStore(USER);
    const [user] = await store.getBranch('big-document');
    expect(user!.content.startsWith('message [REDACTED:github]\n')).toBe(true);
    const [attachment] = user!.metadata['attachments'] as { name: string }[];
    const stored = readFileSync((await store.resolveAttachment('big-document', attachment!.name)).path, 'utf8');
    expect(stored.startsWith('token [REDACTED:anthropic]\n')).toBe(true);
    await store.flush();
    await expectNowhereOnDisk([ANTHROPIC, GITHUB, AWS, 'BEGIN RSA PRIVATE KEY'], { root: join(root, 'data') });
  }, 300_000);
});
