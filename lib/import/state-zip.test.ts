import { describe, expect, it } from 'vitest';
import { entryPath, isStateEntry, stateRootOf } from './state-zip.js';

describe('a state directory in a zip', () => {
  it('tells its entries from an export\'s and finds the folder that holds sessions/', () => {
    expect(isStateEntry('openprogram/sessions/s1/meta.json')).toBe(true);
    expect(isStateEntry('sessions/index.json')).toBe(true);
    expect(isStateEntry('state/projects/projects.json')).toBe(true);
    expect(isStateEntry('conversations.json')).toBe(false);
    expect(isStateEntry('file-abc.png')).toBe(false);
    expect(stateRootOf('openprogram/sessions/s1/meta.json')).toBe('openprogram');
    expect(stateRootOf('sessions/s1/meta.json')).toBe('');
    expect(stateRootOf('a/b/projects/projects.json')).toBe('a/b');
  });

  it('never writes outside the scratch folder', () => {
    expect(entryPath('/scratch', 'state/sessions/s1/meta.json')).toBe('/scratch/state/sessions/s1/meta.json');
    expect(entryPath('/scratch', '../etc/passwd')).toBeNull();
    expect(entryPath('/scratch', 'state/sessions/../../../x')).toBeNull();
    expect(entryPath('/scratch', '/etc/passwd')).toBeNull();
    expect(entryPath('/scratch', 'C:/x')).toBeNull();
    expect(entryPath('/scratch', 'state/sessions/')).toBeNull();
  });
});
