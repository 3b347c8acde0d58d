import { TRPCError } from '@trpc/server';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { BlameView, ProjectFileList } from '@/components/projects/blame-view';
import { getServerCaller, requireUser } from '@/trpc/server';

export const metadata = { title: 'Files · Entity Memory' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** A project's files at HEAD, and one file's blame (DESIGN §14): `/projects/<id>/blame?path=<file>`. */
export default async function ProjectBlamePage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: SearchParams }) {
  await requireUser();
  const { id } = await params;
  const query = await searchParams;
  const path = typeof query.path === 'string' && query.path !== '' ? query.path : null;
  const api = await getServerCaller();
  const project = (await api.project.list()).find((candidate) => candidate.id === id);
  if (!project) notFound();
  const base = `/projects/${encodeURIComponent(project.id)}`;
  const linkClass = 'text-blue-600 hover:underline dark:text-blue-400';
  return (
    <div className="mx-auto max-w-6xl space-y-4 px-4 py-6">
      <p className="flex flex-wrap gap-x-4 text-sm">
        <Link href={base} className={linkClass}>
          ← {project.name}
        </Link>
        {path ? (
          <Link href={`${base}/blame`} className={linkClass}>
            All files
          </Link>
        ) : null}
      </p>
      {path ? <FileBlame projectId={project.id} path={path} /> : <FileList projectId={project.id} />}
    </div>
  );
}

async function FileList({ projectId }: { projectId: string }) {
  const api = await getServerCaller();
  const listed = await refusal(api.project.files({ projectId }));
  return (
    <>
      <h1 className="text-2xl font-semibold">Files</h1>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">Open a file to see which turn wrote each line, and the prompt that asked for it.</p>
      {'refused' in listed ? <Refused message={listed.refused} /> : <ProjectFileList projectId={projectId} files={listed.files} truncated={listed.truncated} />}
    </>
  );
}

async function FileBlame({ projectId, path }: { projectId: string; path: string }) {
  const api = await getServerCaller();
  const blame = await refusal(api.project.blame({ projectId, path }));
  return (
    <>
      <h1 className="break-all font-mono text-xl font-semibold">{path}</h1>
      {'refused' in blame ? <Refused message={blame.refused} /> : <BlameView blame={blame} />}
    </>
  );
}

/** A file blame will not show (binary, too large) or a project without a history: said on the page, not an error page; no such file is the 404 page. */
async function refusal<T>(read: Promise<T>): Promise<T | { refused: string }> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TRPCError && error.code === 'NOT_FOUND') notFound();
    if (error instanceof TRPCError && ['PRECONDITION_FAILED', 'PAYLOAD_TOO_LARGE', 'BAD_REQUEST'].includes(error.code)) return { refused: error.message };
    throw error;
  }
}

function Refused({ message }: { message: string }) {
  return <p className="text-sm font-medium text-red-700 dark:text-red-400">{message}</p>;
}
