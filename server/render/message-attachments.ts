/**
 * Which attachments a message names, for the session page: the store's one rule (the same one
 * decides which files a share link serves), reached from app/ through the server layer.
 */
export { attachmentsOf, type AttachmentRef } from '@/lib/store/index';
