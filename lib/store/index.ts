export { SessionStore, type SessionStoreOptions } from './session-store.js';
export { StoreEvents, type StoreEvent, type StoreEventMap, type StoreEventType } from './events.js';
export * from './errors.js';
export * from './types.js';
export { isSessionId, isNodeId, isProjectId } from './ids.js';
export { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export type { TitleModel, TitleRequest } from './titles/title-model.js';
export type { CreateSessionInput } from './operations/create-session.js';
export type { AppendMessageInput } from './operations/append-message.js';
export type { UpdateSessionInput } from './operations/update-session.js';
export type { BeginTurnResult, FinalizeTurnInput, FinalizeTurnResult } from './operations/commit-turn.js';
export type { CommitPage } from './session/commit-page.js';
export type { NodePage } from './operations/read-branch.js';
export type { SessionAt, TurnRef } from './operations/session-at.js';
export type { TimelinePage, TimelineTurn, TurnNodeSummary } from './operations/timeline-turns.js';
export type { ConversationDag, DagNode } from './operations/conversation-dag.js';
export type { ProjectCommitSummary } from './projects/index.js';
export type { CommitDiff, CommitDiffFile, DiffStatus } from './operations/diff-commit.js';
export type { Provenance } from './operations/provenance.js';
export { RepackQueue } from './repo/repack.js';
export type { UndoOutcome } from './operations/undo-turn.js';
export { FROZEN_ERROR } from './operations/bind-project.js';
export {
  ProjectStore,
  MAX_ATTACHMENT_BYTES,
  type ProjectSummary,
  type ProjectDetail,
  type ProjectCommit,
  type AttachmentUpload,
  type SavedAttachment,
  type ResolvedAttachment,
} from './projects/index.js';
