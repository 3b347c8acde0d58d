import { resolve } from 'node:path';
import { one, table, usageError, type CommandSpec } from '../command-spec.js';

/** The user's projects. */
export const PROJECT_COMMANDS: Record<string, CommandSpec> = {
  'projects list': {
    usage: 'projects list',
    summary: 'list projects (Home first)',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('projects list takes no arguments', this);
      const projects = await backend.listProjects();
      if (values.json) output.out(JSON.stringify(projects));
      else
        table(
          output,
          ['ID', 'NAME', 'SESSIONS', 'AUTO-COMMIT', 'PATH'],
          projects.map((project) => [project.id, project.name, String(project.sessionCount), project.autoCommit ? 'on' : 'off', project.pathMissing ? `${project.path} (missing)` : project.path]),
        );
    },
  },
  'projects add': {
    usage: 'projects add <path> [--name NAME]',
    summary: 'register a git folder as a project (a relative path is from here)',
    async run(backend, args, values, output) {
      const path = resolve(one(args, 'path', this));
      const project = await backend.addProject(values.name === undefined ? { path } : { path, name: values.name });
      if (values.json) output.out(JSON.stringify(project));
      else output.out(`${project.created ? 'Added project' : 'Already a project:'} ${project.name} (${project.id}) at ${project.path}`);
    },
  },
};
