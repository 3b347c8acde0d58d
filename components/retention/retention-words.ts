/** A policy as the retention forms edit it (the API's `{archiveAfterDays?, deleteArchivedAfterDays?}`). */
export interface RetentionPolicyValue {
  archiveAfterDays?: number;
  deleteArchivedAfterDays?: number;
}

/** The days a trashed session is kept (lib/store's TRASH_KEEP_DAYS), said in the UI. */
export const TRASH_KEEP_DAYS = 30;

const days = (count: number) => `${count} day${count === 1 ? '' : 's'}`;

/** What a policy does, in one sentence the user can check. */
export function describeRetention(policy: RetentionPolicyValue): string {
  const { archiveAfterDays, deleteArchivedAfterDays } = policy;
  if (archiveAfterDays === undefined && deleteArchivedAfterDays === undefined) return 'Off: nothing is archived or deleted.';
  const parts: string[] = [];
  if (archiveAfterDays !== undefined) parts.push(`sessions with no activity for ${days(archiveAfterDays)} are archived`);
  if (deleteArchivedAfterDays !== undefined) {
    parts.push(`sessions archived for ${days(deleteArchivedAfterDays)} move to the Trash, where they are kept ${TRASH_KEEP_DAYS} days and then deleted`);
  }
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. Pinned sessions are never touched.`;
}

/** A days field's text as the API's number: empty is "never" (undefined); anything else is sent as typed, for the server to judge. */
export function daysFromField(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

export function fieldFromDays(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}
