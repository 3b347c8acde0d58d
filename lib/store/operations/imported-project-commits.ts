import { DEFAULT_PROJECT_ID } from '../ids.js';
import { runGit } from '../git/git-cli.js';
import { listCommits } from '../session/commit-page.js';
import { openSession, updateSessionFields, withSession } from '../session/session-access.js';
import type { StoreContext } from '../session/store-context.js';
import type { TurnCommitInfo } from '../types.js';
import { PROJECT_LINKS_KEY } from '../session/project-links.js';

/**
 * Imported history gets its project (DESIGN §14, issue 29 item 3): a Claude Code or Codex
 * transcript whose folder (`work_dir`) lies in a registered project is moved into it, and each
 * imported turn is linked to the project commits the agent made during it: committed between the
 * turn's first and last message, by the agent (its name or address in the author or committer,
 * or a Co-authored-by trailer naming it). The links live in meta.json `project_links`
 * (turn → shas, oldest first), since an imported turn's commit carries no project trailer.
 */

/** Who the agent of each transcript source is, as git records it when it commits. */
const AGENT_OF_SOURCE: Record<string, RegExp> = {
  'claude-code': /claude|anthropic/i,
  codex: /codex|openai/i,
};

export interface ImportedProjectSteps {
  /** the registered project (not Home) whose folder holds `folder`, or null */
  projectHolding(folder: string): Promise<string | null>;
  moveFromHome(sessionId: string, projectId: string): Promise<unknown>;
}

interface ProjectCommitLine {
  sha: string;
  /** committer time, Unix seconds */
  time: number;
  who: string;
}

/** Commits of every branch of the project committed in [since, until] (seconds), newest first. */
async function commitsBetween(folder: string, since: number, until: number): Promise<ProjectCommitLine[]> {
  const { stdout } = await runGit(folder, ['log', '--all', '--max-count=10000', `--since=${Math.floor(since)}`, `--until=${Math.ceil(until)}`, '--format=%H%x00%ct%x00%an <%ae>%x00%cn <%ce>%x00%B%x1e'], { okCodes: [0, 128] });
  return stdout
    .toString('utf8')
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.includes('\x00'))
    .map((record) => {
      const [sha = '', time = '0', author = '', committer = '', body = ''] = record.split('\x00');
      const coAuthors = [...body.matchAll(/^co-authored-by:\s*(.+)$/gim)].map((match) => match[1]!);
      return { sha, time: Number(time), who: [author, committer, ...coAuthors].join('\n') };
    });
}

/** Each turn's span: from its first message to its last, in seconds. */
function turnSpans(commits: readonly TurnCommitInfo[], timeOf: (id: string) => number | null): { turn: number; from: number; to: number }[] {
  const spans: { turn: number; from: number; to: number }[] = [];
  for (const commit of commits) {
    const times = commit.nodeIds.map(timeOf).filter((time): time is number => time !== null);
    if (times.length > 0) spans.push({ turn: commit.turn, from: Math.min(...times), to: Math.max(...times) });
  }
  return spans;
}

/** Link the imported session's turns to the agent's project commits; moves it into the project of its folder first. */
export async function linkImportedProjectCommits(ctx: StoreContext, sessionId: string, steps: ImportedProjectSteps): Promise<{ projectId: string | null; links: Record<string, string[]> }> {
  const entry = ctx.registry.get(sessionId);
  const agent = entry ? AGENT_OF_SOURCE[entry.source] : undefined;
  const folder = openSession(ctx, sessionId).meta['work_dir'];
  if (!entry || !agent || typeof folder !== 'string' || folder === '') return { projectId: null, links: {} };
  let projectId = entry.project_id;
  if (projectId === DEFAULT_PROJECT_ID) {
    const holding = await steps.projectHolding(folder);
    if (!holding) return { projectId: null, links: {} };
    await steps.moveFromHome(sessionId, holding);
    projectId = holding;
  }
  const where = await ctx.projects.workdirState(projectId).catch(() => null);
  if (!where || where.state === 'missing') return { projectId, links: {} };

  const commits: TurnCommitInfo[] = [];
  let cursor: string | null = null;
  do {
    const page = await listCommits(ctx, sessionId, { limit: 200, cursor });
    commits.push(...page.commits.filter((commit) => commit.turn >= 1));
    cursor = page.nextCursor;
  } while (cursor);
  return withSession(ctx, sessionId, async (session) => {
    const spans = turnSpans(commits, (id) => session.graph.get(id)?.created_at ?? null);
    const links: Record<string, string[]> = {};
    if (spans.length > 0) {
      const since = Math.min(...spans.map((span) => span.from));
      const until = Math.max(...spans.map((span) => span.to));
      for (const line of (await commitsBetween(where.path, since, until)).reverse()) {
        if (!agent.test(line.who)) continue;
        const span = spans.find((candidate) => line.time >= Math.floor(candidate.from) && line.time <= Math.ceil(candidate.to));
        if (span) (links[String(span.turn)] ??= []).push(line.sha);
      }
    }
    if (JSON.stringify(session.meta[PROJECT_LINKS_KEY] ?? {}) !== JSON.stringify(links)) await updateSessionFields(ctx, session, { [PROJECT_LINKS_KEY]: links });
    return { projectId, links };
  });
}
