import { describe, expect, it } from 'vitest';
import { redactBytes, rewriteExport } from './migration-redact.js';
import type { Redactor } from '../types.js';

// A stand-in rule (the real ones live in lib/redact, above the store): every "SECRET-<n>" goes.
const redactor: Redactor = (message) => {
  let count = 0;
  const json = JSON.stringify({ content: message.content }).replace(/SECRET-\d+/g, () => {
    count++;
    return '[REDACTED:test]';
  });
  return { message: { ...message, content: (JSON.parse(json) as { content: unknown }).content }, count };
};

describe('secrets out of a staged repo', () => {
  it('redacts JSON by its strings (staying JSON), text as text, and leaves binary and clean files alone', () => {
    const json = redactBytes(Buffer.from('{"output": "key SECRET-123 here", "n": 1}'), redactor)!;
    expect(JSON.parse(json.bytes.toString())).toEqual({ output: 'key [REDACTED:test] here', n: 1 });
    expect(json.count).toBe(1);
    expect(redactBytes(Buffer.from('plain SECRET-1 and SECRET-2'), redactor)).toEqual({ bytes: Buffer.from('plain [REDACTED:test] and [REDACTED:test]'), count: 2 });
    expect(redactBytes(Buffer.from([0x53, 0x45, 0x43, 0x00, 0x52, 0x45, 0x54, 0x2d, 0x31]), redactor)).toBeNull();
    expect(redactBytes(Buffer.from('nothing to see here'), redactor)).toBeNull();
  });

  it('rewrites a fast-export stream: replaced blob ids, redacted messages with their byte lengths', () => {
    const old = 'a'.repeat(40);
    const fresh = 'b'.repeat(40);
    const message = 'turn: é SECRET-42';
    const stream = Buffer.from(
      `commit refs/heads/main\nmark :1\ncommitter OpenProgram <openprogram@local> 1 +0000\ndata ${Buffer.byteLength(message)}\n${message}\nM 100644 ${old} history/000001-u-x.json\nM 100644 ${'c'.repeat(40)} meta.json\n\n`,
    );
    const out = rewriteExport(stream, new Map([[old, fresh]]), redactor).toString();
    const redacted = 'turn: é [REDACTED:test]';
    expect(out).toBe(
      `commit refs/heads/main\nmark :1\ncommitter OpenProgram <openprogram@local> 1 +0000\ndata ${Buffer.byteLength(redacted)}\n${redacted}\nM 100644 ${fresh} history/000001-u-x.json\nM 100644 ${'c'.repeat(40)} meta.json\n\n`,
    );
  });

  it('redacts a file that is not UTF-8 as Latin-1, keeping its other bytes (issue 27 item 8)', () => {
    const latin1 = Buffer.concat([Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9]), Buffer.from(' SECRET-7 \n')]);
    const out = redactBytes(latin1, redactor)!;
    expect(out.count).toBe(1);
    expect(out.bytes).toEqual(Buffer.concat([Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9]), Buffer.from(' [REDACTED:test] \n')]));
    expect(redactBytes(Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9, 0x20, 0x6f, 0x6b]), redactor)).toBeNull();
  });

  it("redacts author, committer and tagger lines' names and emails; a Latin-1 message keeps its bytes (issue 27 item 8)", () => {
    const latin1Message = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' SECRET-5')]);
    const stream = Buffer.concat([
      Buffer.from('commit refs/heads/main\nmark :1\nauthor Dev SECRET-1 <SECRET-2@example.com> 1 +0000\ncommitter OpenProgram <openprogram@local> 1 +0000\n'),
      Buffer.from(`data ${latin1Message.length}\n`),
      latin1Message,
      Buffer.from('\n\ntag v1\nfrom :1\ntagger <SECRET-3> 2 +0100\ndata 2\nok\n'),
    ]);
    const out = rewriteExport(stream, new Map(), redactor);
    const redactedMessage = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' [REDACTED:test]')]);
    expect(out).toEqual(
      Buffer.concat([
        Buffer.from('commit refs/heads/main\nmark :1\nauthor Dev [REDACTED:test] <[REDACTED:test]@example.com> 1 +0000\ncommitter OpenProgram <openprogram@local> 1 +0000\n'),
        Buffer.from(`data ${redactedMessage.length}\n`),
        redactedMessage,
        Buffer.from('\n\ntag v1\nfrom :1\ntagger <[REDACTED:test]> 2 +0100\ndata 2\nok\n'),
      ]),
    );
  });
});
