import type { SessionStore } from '../store/index.js';

/**
 * Where the resumed agent should run when the caller names no folder: the session's project
 * (the agent then continues with that code), else the folder its agent worked in, else the
 * first folder it was given, else the Home project's folder.
 */
export async function defaultResumeFolder(store: Pick<SessionStore, 'getSession' | 'listProjects'>, sessionId: string): Promise<string> {
  const session = await store.getSession(sessionId);
  const projects = await store.listProjects();
  const project = projects.find((item) => item.id === session.projectId);
  if (project && !project.isDefault) return project.path;
  if (session.agentFolder) return session.agentFolder.path;
  if (session.workdirs[0]) return session.workdirs[0];
  return (projects.find((item) => item.isDefault) ?? project)?.path ?? '/';
}
