import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResponseIndex } from './response-index';

const root = mkdtempSync(join(tmpdir(), 'proxy-responses-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the Responses ids on disk', () => {
  it('finds an id after a restart (a new instance on the same file), skipping a torn last line', async () => {
    const path = join(root, 'a', 'proxy-responses.jsonl');
    const index = new ResponseIndex(path);
    expect(index.get('resp_1')).toBeNull();
    await index.add('resp_1', { sessionId: 's1', nodeId: 'n1', fingerprint: 'f1' });
    await index.add('resp_2', { sessionId: 's1', nodeId: 'n2', fingerprint: 'f2' });
    appendFileSync(path, '{"id":"resp_3","sessionId":"s');
    const reopened = new ResponseIndex(path);
    expect(reopened.get('resp_1')).toEqual({ sessionId: 's1', nodeId: 'n1', fingerprint: 'f1' });
    expect(reopened.get('resp_2')).toEqual({ sessionId: 's1', nodeId: 'n2', fingerprint: 'f2' });
    expect(reopened.get('resp_3')).toBeNull();
  });

  it('keeps the newest `cap` ids and rewrites the file when it grows past twice that', async () => {
    const path = join(root, 'b', 'proxy-responses.jsonl');
    const index = new ResponseIndex(path, 3);
    for (let i = 1; i <= 7; i++) await index.add(`resp_${i}`, { sessionId: 's', nodeId: `n${i}`, fingerprint: `f${i}` });
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(6);
    const reopened = new ResponseIndex(path, 3);
    expect(reopened.get('resp_7')).toMatchObject({ nodeId: 'n7' });
    expect(reopened.get('resp_5')).toMatchObject({ nodeId: 'n5' });
    expect(reopened.get('resp_1')).toBeNull();
  });
});
