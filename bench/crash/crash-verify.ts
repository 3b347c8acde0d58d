/**
 * The checks after each restart, what DESIGN §2 promises: every JSON file parses, the registry
 * equals every meta.json, no session lost, duplicated or half there, every acknowledged node,
 * commit, title and archived flag kept, git fsck clean, search caught up with git, and every
 * project's acknowledged agent commits on its branch.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { call, listAllSessions, searchHits, sleep, type SessionRow } from './crash-client.js';
import { git } from './crash-git.js';
import type { Client, TrackedProject, TrackedSession } from './crash-model.js';
import type { CrashRun } from './crash-run.js';

/** Every JSON file under the data directory (git's own files aside) parses. */
function checkJsonParses(run: CrashRun, dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) {
      if (name !== '.git') checkJsonParses(run, path);
    } else if (name.endsWith('.json')) {
      try {
        JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        run.violation(`${path.slice(run.dataDir.length)} does not parse: ${(error as Error).message}`);
      }
    }
  }
}

/** The index is rebuilt after a kill (the file is left unmarked): wait until it says it caught up. */
async function searchCaughtUp(run: CrashRun, client: Client, round: number): Promise<boolean> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = (await call(run, client, 'session.searchStatus', undefined, 'query')) as { state: string };
    if (status.state === 'ready') return true;
    if (Date.now() > deadline) {
      run.violation(`round ${round}: the search index of ${client.userId} still catching up after 120 s`);
      return false;
    }
    await sleep(100);
  }
}

/** A session's tag searched: every acknowledged message of it found, and of a deleted one nothing. */
async function checkSearch(run: CrashRun, client: Client, session: TrackedSession, round: number): Promise<void> {
  const hits = await searchHits(run, client, session.tag);
  if (session.deleted === 'acked') {
    if (hits.sessions.size > 0) {
      run.figures.searchStale++;
      run.violation(`round ${round}: search finds deleted session ${session.id} (${[...hits.sessions].join(', ')})`);
    }
    return;
  }
  for (const nodeId of session.nodes) {
    run.figures.searched++;
    if (!hits.messages.has(nodeId)) {
      run.figures.searchStale++;
      run.violation(`round ${round}: search does not find message ${nodeId} of ${session.id}`);
    }
  }
}

/**
 * The title and archived flag meta.json kept (the registry is compared with meta.json above):
 * the last acknowledged value, or that of the update a kill cut off, which is then adopted.
 */
function checkUpdates(run: CrashRun, session: TrackedSession, meta: Record<string, unknown>, round: number): void {
  if (session.title !== null) {
    const allowed = session.pendingTitle === undefined ? [session.title] : [session.title, session.pendingTitle];
    const kept = meta['title'];
    if (typeof kept !== 'string' || !allowed.includes(kept)) run.lost(`round ${round}: title of ${session.id} is ${JSON.stringify(kept)}, acknowledged ${JSON.stringify(session.title)}`);
    // What the server kept is the baseline from now on: a loss is counted once, not every round.
    if (typeof kept === 'string') session.title = kept;
  }
  const allowed = session.pendingArchived === undefined ? [session.archived] : [session.archived, session.pendingArchived];
  const kept = meta['archived'];
  if (typeof kept !== 'boolean' || !allowed.includes(kept)) run.lost(`round ${round}: archived of ${session.id} is ${JSON.stringify(kept)}, acknowledged ${session.archived}`);
  if (typeof kept === 'boolean') session.archived = kept;
  delete session.pendingTitle;
  delete session.pendingArchived;
}

/**
 * The sessions on disk of one user, by id: a session is a directory with meta.json and a git
 * repository, at sessions/<sid> or, bound to a project, at sessions/projects/<pid>/<sid>.
 * A half one or one there twice is a violation.
 */
function sessionsOnDisk(run: CrashRun, sessionsDir: string, round: number): { onDisk: Map<string, Record<string, unknown>>; repoDirs: Map<string, string>; projectsDir: string } {
  const onDisk = new Map<string, Record<string, unknown>>();
  const repoDirs = new Map<string, string>();
  const scan = (parent: string) => {
    if (!existsSync(parent)) return;
    for (const name of readdirSync(parent)) {
      const dir = join(parent, name);
      if (name.startsWith('.') || (parent === sessionsDir && name === 'projects') || !statSync(dir).isDirectory()) continue;
      const hasMeta = existsSync(join(dir, 'meta.json'));
      const hasGit = existsSync(join(dir, '.git'));
      if (!hasMeta || !hasGit) {
        run.violation(`round ${round}: ${dir.slice(sessionsDir.length + 1)} half there (meta.json ${hasMeta}, .git ${hasGit})`);
        continue;
      }
      if (repoDirs.has(name)) run.violation(`round ${round}: ${name} on disk twice (${repoDirs.get(name)!.slice(sessionsDir.length + 1)}, ${dir.slice(sessionsDir.length + 1)})`);
      repoDirs.set(name, dir);
      try {
        onDisk.set(name, JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>);
      } catch {
        // counted by checkJsonParses
      }
    }
  };
  scan(sessionsDir);
  const projectsDir = join(sessionsDir, 'projects');
  if (existsSync(projectsDir)) for (const projectId of readdirSync(projectsDir)) if (statSync(join(projectsDir, projectId)).isDirectory()) scan(join(projectsDir, projectId));
  return { onDisk, repoDirs, projectsDir };
}

/** After a restart: every check, for every user, then every project. */
export async function verifyAfterRestart(run: CrashRun, round: number): Promise<void> {
  checkJsonParses(run, run.dataDir);
  const seenUsers = new Set<string>();
  for (const client of run.clients) {
    if (seenUsers.has(client.userId)) continue;
    seenUsers.add(client.userId);
    const sessionsDir = join(run.dataDir, 'users', client.userId, 'sessions');
    const rows = await listAllSessions(run, client);
    const searchable = await searchCaughtUp(run, client, round);
    // Searched this round: the sessions written to since the last restart, a few others, the newly deleted.
    const toSearch: TrackedSession[] = [];
    const listed = new Map<string, SessionRow>();
    for (const row of rows) {
      if (listed.has(row.id)) run.violation(`round ${round}: ${row.id} listed twice`);
      listed.set(row.id, row);
    }
    const { onDisk, repoDirs, projectsDir } = sessionsOnDisk(run, sessionsDir, round);
    for (const [id, meta] of onDisk) {
      const row = listed.get(id);
      if (!row) {
        run.violation(`round ${round}: ${id} on disk but not in the registry`);
        continue;
      }
      for (const [rowKey, metaKey] of [['title', 'title'], ['archived', 'archived'], ['pinned', 'pinned'], ['status', 'status']] as const) {
        if (row[rowKey] !== meta[metaKey]) run.violation(`round ${round}: ${id} registry ${rowKey}=${JSON.stringify(row[rowKey])} but meta.json ${JSON.stringify(meta[metaKey])}`);
      }
    }
    for (const id of listed.keys()) if (!onDisk.has(id)) run.violation(`round ${round}: ${id} in the registry but not on disk`);

    for (const session of run.sessions.values()) {
      if (run.clients[session.client]!.userId !== client.userId) continue;
      const present = onDisk.has(session.id);
      if (session.created === 'pending') {
        // Unacknowledged: either outcome is fine; adopt what the server kept.
        if (!present) {
          run.sessions.delete(session.id);
          continue;
        }
        session.created = 'acked';
      }
      if (session.deleted === 'pending') {
        session.deleted = present ? 'no' : 'acked';
      }
      if (session.deleted === 'acked') {
        if (present) run.violation(`round ${round}: ${session.id} deleted (acknowledged) but back`);
        if (!session.searchedGone) {
          toSearch.push(session);
          session.searchedGone = true;
        }
        continue;
      }
      if (!present) {
        run.lost(`round ${round}: session ${session.id}`);
        run.sessions.delete(session.id);
        continue;
      }
      checkUpdates(run, session, onDisk.get(session.id)!, round);
      const dir = repoDirs.get(session.id)!;
      if (session.project !== null && dir !== join(projectsDir, session.project, session.id)) run.violation(`round ${round}: ${session.id} of project ${session.project} is at ${dir.slice(sessionsDir.length + 1)}`);
      const historyFiles = existsSync(join(dir, 'history')) ? readdirSync(join(dir, 'history')) : [];
      const hasNode = (nodeId: string) => historyFiles.some((name) => name.includes(nodeId));
      for (const nodeId of session.nodes) if (!hasNode(nodeId)) run.lost(`round ${round}: node ${nodeId} of ${session.id}`);
      for (const commit of session.commits) {
        if (!git(dir, ['cat-file', '-e', `${commit.sha}^{commit}`]).ok) {
          run.lost(`round ${round}: commit ${commit.sha} of ${session.id}`);
          continue;
        }
        const tree = git(dir, ['ls-tree', '-r', '--name-only', commit.sha, '--', 'history']).output;
        for (const nodeId of commit.nodes) if (!tree.includes(nodeId)) run.lost(`round ${round}: node ${nodeId} missing from commit ${commit.sha} of ${session.id}`);
      }
      if (session.touched || run.random() < 0.05) toSearch.push(session);
      if (session.touched) {
        const fsck = git(dir, ['fsck', '--no-dangling', '--no-progress']);
        if (!fsck.ok) run.violation(`round ${round}: git fsck ${session.id}: ${fsck.output.slice(0, 300)}`);
        session.touched = false;
      }
    }
    if (searchable) for (const session of toSearch) await checkSearch(run, client, session, round);
  }
  for (const [index, project] of run.projects) await verifyProject(run, run.clients[index]!, project, round);
}

/**
 * A project after a restart: still registered, `git fsck` clean, every acknowledged agent commit
 * on its branch with the file it wrote. Then the person commits what killed turns left in the
 * folder, as someone would: a dirty tree would skip every later agent commit.
 */
async function verifyProject(run: CrashRun, client: Client, project: TrackedProject, round: number): Promise<void> {
  const listed = (await call(run, client, 'project.list', undefined, 'query')) as { id: string }[];
  if (!listed.some((row) => row.id === project.id)) run.lost(`round ${round}: project ${project.id} of client ${client.index} no longer listed`);
  const fsck = git(project.dir, ['fsck', '--no-dangling', '--no-progress']);
  if (!fsck.ok) run.violation(`round ${round}: git fsck project ${project.id}: ${fsck.output.slice(0, 300)}`);
  for (const commit of project.commits) {
    if (!git(project.dir, ['cat-file', '-e', `${commit.sha}^{commit}`]).ok) {
      run.lost(`round ${round}: agent commit ${commit.sha} of project ${project.id}`);
      continue;
    }
    if (!git(project.dir, ['merge-base', '--is-ancestor', commit.sha, 'HEAD']).ok) run.lost(`round ${round}: agent commit ${commit.sha} of project ${project.id} is off its branch`);
    const shown = git(project.dir, ['show', `${commit.sha}:${commit.file}`]);
    if (!shown.ok || shown.output !== commit.content) run.lost(`round ${round}: ${commit.file} in agent commit ${commit.sha} of project ${project.id}`);
  }
  // The killed server's git may still be finishing an agent commit (a SIGKILL does not reach its
  // children): what looked dirty can be committed by the time the person adds it.
  const add = git(project.dir, ['add', '-A']);
  if (!add.ok) run.violation(`round ${round}: git add in project ${project.id}: ${add.output.slice(0, 300)}`);
  else if (!git(project.dir, ['diff', '--cached', '--quiet']).ok) {
    const commit = git(project.dir, ['-c', 'user.name=crash person', '-c', 'user.email=person@crash.test', 'commit', '-q', '-m', `person: what round ${round}'s kill left`]);
    if (!commit.ok) run.violation(`round ${round}: the person's commit in project ${project.id} failed: ${commit.output.slice(0, 300)}`);
  }
}
