import { AddProjectForm } from '@/components/projects/add-project-form';
import { ProjectList } from '@/components/projects/project-list';
import { TitledSection } from '@/components/ui/titled-section';
import { getServerCaller, requireUser } from '@/trpc/server';

export const metadata = { title: 'Projects · Entity Memory' };

/** DESIGN §7 "Projects": every project, its missing-folder repair, auto-commit switch and unregister. */
export default async function ProjectsPage() {
  await requireUser();
  const projects = await (await getServerCaller()).project.list();
  return (
    <div className="mx-auto max-w-5xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold">Projects</h1>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        A project is a folder with its own git repository. At the end of each turn the agent&apos;s edits there are committed under its own name, beside your commits.
      </p>
      <TitledSection id="add-project-title" title="Add project">
        <AddProjectForm />
      </TitledSection>
      <ProjectList initialProjects={projects} />
    </div>
  );
}
