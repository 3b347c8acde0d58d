export { SessionTrash } from './session-trash.js';
export { TRASH_DIR, TRASH_KEEP_DAYS, DAY_SECONDS, type TrashRecord } from './trash-record.js';
