import { describe, expect, it } from 'vitest';
import { shareIdOfPath } from './share-route';

describe('shareIdOfPath', () => {
  it("names the link of a shared page, its server actions and its attachments, as HAProxy's links map does", () => {
    expect(shareIdOfPath('/s/AAAAAAAAAAAAAAAAAAAAAw')).toBe('AAAAAAAAAAAAAAAAAAAAAw');
    expect(shareIdOfPath('/s/AAAAAAAAAAAAAAAAAAAAAw?_rsc=1')).toBe('AAAAAAAAAAAAAAAAAAAAAw');
    expect(shareIdOfPath('/api/share/AAAAAAAAAAAAAAAAAAAAAw/attachments/a.png')).toBe('AAAAAAAAAAAAAAAAAAAAAw');
  });

  it('leaves every other path to the owner check of the signed-in user', () => {
    for (const path of ['/', '/s/', '/sessions/s1', '/api/trpc/share.list', '/settings/s/x', '/api/shares/x']) expect(shareIdOfPath(path)).toBeNull();
    expect(shareIdOfPath('/s/%E0%A4%A')).toBeNull();
  });
});
