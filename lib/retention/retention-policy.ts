import { z } from 'zod';

/** DESIGN §17: what a user (or the admin, for everyone) chose; a missing field is "never". */
export interface RetentionPolicy {
  /** archive sessions with no activity for this many days */
  archiveAfterDays?: number;
  /** move sessions archived this many days into the trash (kept there TRASH_KEEP_DAYS, then purged) */
  deleteArchivedAfterDays?: number;
}

/** A hundred years: past it a number is a typing mistake, not a policy. */
export const MAX_RETENTION_DAYS = 36_500;

const days = (field: string) =>
  z
    .number({ message: `${field} must be a number of days` })
    .int(`${field} must be a whole number of days`)
    .min(1, `${field} must be at least 1 day`)
    .max(MAX_RETENTION_DAYS, `${field} must be at most ${MAX_RETENTION_DAYS} days`);

export const retentionPolicySchema = z
  .object({ archiveAfterDays: days('archiveAfterDays').optional(), deleteArchivedAfterDays: days('deleteArchivedAfterDays').optional() })
  .strict();

/** Off: nothing is archived, trashed or purged. */
export const RETENTION_OFF: RetentionPolicy = {};

export function isRetentionOff(policy: RetentionPolicy): boolean {
  return policy.archiveAfterDays === undefined && policy.deleteArchivedAfterDays === undefined;
}

/** The policy a file holds, or null when it holds none that parses (never a guess: a broken file is off). */
export function parsePolicy(value: unknown): RetentionPolicy | null {
  const parsed = retentionPolicySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export interface EffectiveRetention {
  policy: RetentionPolicy;
  /** whose choice it is */
  from: 'user' | 'instance';
}

/**
 * The user's own choice wins whenever they made one, "off" included: it is their history. With
 * none, the instance default the admin set applies (off unless set).
 */
export function effectiveRetention(own: RetentionPolicy | null, instance: RetentionPolicy | null): EffectiveRetention {
  if (own) return { policy: own, from: 'user' };
  return { policy: instance ?? RETENTION_OFF, from: 'instance' };
}
