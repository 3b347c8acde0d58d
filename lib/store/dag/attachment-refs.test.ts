import { describe, expect, it } from 'vitest';
import { attachmentsOf } from './attachment-refs.js';

describe('attachmentsOf: the one rule for which files a message names (session page and share links)', () => {
  it('reads the upload answers, bare ids and paths, and the seeds markers, each file once', () => {
    const metadata = {
      attachments: [
        { id: 'a1b2.png', name: 'screenshot.png', size: 2048 },
        '/data/workspaces/u/s1/workdir/attachments/c3d4.txt',
        { path: 'C:\\agent\\attachments\\e5f6.pdf' },
        'a1b2.png',
      ],
    };
    const content = 'see [attachment: workdir/attachments/g7h8.csv] and [attached: c3d4.txt]';
    expect(attachmentsOf(metadata, content)).toEqual([
      { file: 'a1b2.png', label: 'screenshot.png', size: 2048 },
      { file: 'c3d4.txt', label: 'c3d4.txt', size: null },
      { file: 'e5f6.pdf', label: 'e5f6.pdf', size: null },
      { file: 'g7h8.csv', label: 'g7h8.csv', size: null },
    ]);
  });

  it('names no folder: a label that is a path shows its last part, and no reference leaves the attachments folder', () => {
    const metadata = { attachments: [{ id: 'x1.bin', name: '/home/alice/secret-project/report.pdf' }, '..', { id: '.' }, 'dir/', { size: 3 }] };
    expect(attachmentsOf(metadata, '[attachment: ../..] [attached: \0bad]')).toEqual([{ file: 'x1.bin', label: 'report.pdf', size: null }]);
  });

  it('finds nothing in a message without attachments', () => {
    expect(attachmentsOf({ attachments: 'not a list' }, 'plain text with [brackets]')).toEqual([]);
  });
});
