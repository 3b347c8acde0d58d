import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ProjectCommitList } from '@/components/projects/project-commit-list';
import { getServerCaller, requireUser } from '@/trpc/server';
import { orNotFound } from '../../sessions/[id]/timeline/or-not-found';

export const metadata = { title: 'Project · Entity Memory' };

/** A project's agent commits with the session turn of each (provenance, entity-memory.zh.md §4.3). */
export default async function ProjectPage({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  const { id } = await params;
  const api = await getServerCaller();
  const project = (await api.project.list()).find((candidate) => candidate.id === id);
  if (!project) notFound();
  const commits = project.pathMissing ? [] : await orNotFound(api.project.commits({ id, limit: 100 }));
  const sessionIds = [...new Set(commits.map((commit) => commit.sessionId).filter((sid) => sid !== null))];
  const titles: Record<string, string | null> = {};
  await Promise.all(
    sessionIds.map(async (sid) => {
      try {
        const session = await api.session.get({ id: sid });
        titles[sid] = session.title || session.preview || sid;
      } catch {
        titles[sid] = null; // deleted since, or never this user's
      }
    }),
  );
  return (
    <div className="mx-auto max-w-5xl space-y-4 px-4 py-6">
      <p className="text-sm">
        <Link href="/projects" className="text-blue-600 hover:underline dark:text-blue-400">
          ← Projects
        </Link>
      </p>
      <h1 className="text-2xl font-semibold">{project.name}</h1>
      <p className="break-all font-mono text-xs text-neutral-600 dark:text-neutral-400">{project.path}</p>
      {project.pathMissing ? <p className="text-sm font-medium text-red-700 dark:text-red-400">Folder missing: relocate it from the Projects page to see its commits.</p> : null}
      {project.pathMissing || project.isDefault ? null : (
        <Link href={`/projects/${encodeURIComponent(project.id)}/blame`} className="inline-block text-sm text-blue-600 hover:underline dark:text-blue-400">
          Files and blame
        </Link>
      )}
      <h2 className="text-lg font-semibold">Agent commits</h2>
      <ProjectCommitList projectId={project.id} commits={commits} titles={titles} />
    </div>
  );
}
