import { DiffFileView } from '@/components/timeline/diff-file-view';
import type { RouterOutputs } from '@/trpc/types';

type Project = RouterOutputs['session']['compare']['project'];
type Files = Extract<Project, { state: 'diff' }>['between'];

const NONE: Record<Extract<Project, { state: 'none' }>['reason'], string> = {
  home: 'This session is in no project: there are no project changes to compare.',
  'no-commits': 'Neither branch committed project changes.',
  missing: "The project's folder, or commits of these branches, are no longer there: the changes cannot be shown.",
};

function FileList({ label, files, empty }: { label: string; files: Files; empty: string }) {
  return (
    <section aria-label={label} className="min-w-0 space-y-2">
      <h3 className="text-sm font-medium">{label}</h3>
      {files.length === 0 ? <p className="text-sm text-neutral-600 dark:text-neutral-400">{empty}</p> : files.map((file) => <DiffFileView key={file.path} {...file} />)}
    </section>
  );
}

const commitsWord = (n: number) => (n === 1 ? '1 commit' : `${n} commits`);

/** Each branch's project changes (its turns' agent commits together), then the diff between the trees they left. */
export function CompareProject({ project }: { project: Project }) {
  if (project.state === 'none') return <p className="text-sm text-neutral-600 dark:text-neutral-400">{NONE[project.reason]}</p>;
  return (
    <div className="space-y-4">
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <FileList label={`Project changes of branch A (${commitsWord(project.a.commits.length)})`} files={project.a.files} empty="This branch changed no project files." />
        <FileList label={`Project changes of branch B (${commitsWord(project.b.commits.length)})`} files={project.b.files} empty="This branch changed no project files." />
      </div>
      <details className="rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
        <summary className="cursor-pointer text-sm font-medium">From the tree branch A left to the one branch B left</summary>
        <div className="mt-3">
          <FileList label="Between the two trees" files={project.between} empty="Both branches left the same files." />
        </div>
      </details>
    </div>
  );
}
