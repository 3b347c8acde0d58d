import { createCallerFactory, createTRPCRouter } from './trpc';
import { adminRouter } from './routers/admin';
import { clusterMoveRouter } from './routers/cluster-move';
import { authRouter } from './routers/auth';
import { tokenRouter } from './routers/token';
import { userRouter } from './routers/user';
import { sessionRouter } from './routers/session';
import { messageRouter } from './routers/message';
import { branchRouter } from './routers/branch';
import { turnRouter } from './routers/turn';
import { projectRouter } from './routers/project';
import { timelineRouter } from './routers/timeline';
import { chatRouter } from './routers/chat';
import { modelsRouter } from './routers/models';
import { proxyRouter } from './routers/proxy';
import { shareRouter } from './routers/share';
import { resumeRouter } from './routers/resume';
import { tagRouter } from './routers/tag';
import { noteRouter } from './routers/note';
import { usageRouter } from './routers/usage';
import { bookmarkRouter } from './routers/bookmark';
import { viewRouter } from './routers/view';
import { auditRouter } from './routers/audit';
import { retentionRouter } from './routers/retention';
import { trashRouter } from './routers/trash';

/**
 * Every router, one per domain (server/api/routers/<domain>.ts). The store's routers go here too:
 * session, message, branch, turn, project, timeline, chat.
 */
export const appRouter = createTRPCRouter({
  auth: authRouter,
  user: userRouter,
  token: tokenRouter,
  admin: adminRouter,
  clusterMove: clusterMoveRouter,
  session: sessionRouter,
  message: messageRouter,
  branch: branchRouter,
  turn: turnRouter,
  project: projectRouter,
  timeline: timelineRouter,
  chat: chatRouter,
  models: modelsRouter,
  proxy: proxyRouter,
  share: shareRouter,
  resume: resumeRouter,
  tag: tagRouter,
  note: noteRouter,
  usage: usageRouter,
  bookmark: bookmarkRouter,
  view: viewRouter,
  audit: auditRouter,
  retention: retentionRouter,
  trash: trashRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
