import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirsPerTest } from '../testing/temp-store.js';
import { forgetMigration, migrationRoot, projectMigrationBlock, readMigrationJournal, recordMigration, type MigrationEntry } from './migration-journal.js';

const entry = (step: MigrationEntry['step'], extra: Partial<MigrationEntry> = {}): MigrationEntry => ({ sessionId: 's1', projectId: 'app-1', from: '/src/s1', recoveryFrom: null, step, ...extra });

describe('the migration journal', () => {
  const dir = tempDirsPerTest();

  it('records each step over the last, forgets a finished one, and survives a reread', () => {
    const sessions = dir();
    expect(readMigrationJournal(sessions).size).toBe(0);
    recordMigration(sessions, entry('inventoried'));
    recordMigration(sessions, entry('staged'));
    recordMigration(sessions, { ...entry('verified'), sessionId: 's2' });
    expect([...readMigrationJournal(sessions).values()].map((e) => [e.sessionId, e.step])).toEqual([
      ['s1', 'staged'],
      ['s2', 'verified'],
    ]);
    forgetMigration(sessions, 's1');
    expect([...readMigrationJournal(sessions).keys()]).toEqual(['s2']);
  });

  it('a project with a session on its way in, or a failed publish, refuses new bindings; others are free', () => {
    const sessions = dir();
    recordMigration(sessions, entry('staged'));
    expect(projectMigrationBlock(sessions, 'app-1')).toBe('project app-1 is unavailable while session s1 is moved into it');
    recordMigration(sessions, entry('failed', { error: 'a folder is already in the way' }));
    expect(projectMigrationBlock(sessions, 'app-1')).toMatch(/moving session s1 into it failed \(a folder is already in the way\)/);
    expect(projectMigrationBlock(sessions, 'other')).toBeNull();
  });

  it('an unreadable journal or entries of the wrong shape are passed over, never followed', () => {
    const sessions = dir();
    mkdirSync(migrationRoot(sessions), { recursive: true });
    writeFileSync(join(migrationRoot(sessions), 'journal.json'), '{not json');
    expect(readMigrationJournal(sessions).size).toBe(0);
    writeFileSync(join(migrationRoot(sessions), 'journal.json'), JSON.stringify({ entries: [{ ...entry('staged'), sessionId: '../evil' }, { ...entry('nonsense' as never) }, entry('verified')] }));
    expect([...readMigrationJournal(sessions).values()]).toEqual([entry('verified')]);
  });
});
