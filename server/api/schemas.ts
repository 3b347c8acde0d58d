import { z } from 'zod';
import { MAX_TAG_CHARS, MAX_TAGS_PER_SESSION, SESSION_STATES } from '@/lib/store/index';
import { COMMIT_ID_PATTERN, NODE_ID_PATTERN, PROJECT_ID_PATTERN, RESERVED_SESSION_IDS, SESSION_ID_PATTERN } from '@/lib/store/index';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, TOKEN_ID_PATTERN, TOKEN_NAME_MAX_LENGTH, USER_ID_PATTERN } from '@/lib/auth/index';
import { SHARE_EXPIRIES } from '@/lib/share/index';

/** Input pieces shared by several routers. lib/auth checks the same rules again for other callers. */
export const emailInput = z.string().trim().max(EMAIL_MAX_LENGTH).pipe(z.email({ error: 'must be an email address' }));
export const passwordInput = z
  .string()
  .refine((value) => [...value].length >= PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .refine((value) => [...value].length <= PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
export const userIdInput = z.string().regex(USER_ID_PATTERN, 'must be a user id');
export const tokenIdInput = z.string().regex(TOKEN_ID_PATTERN, 'must be a token id');
export const tokenNameInput = z.string().trim().min(1, 'must not be empty').max(TOKEN_NAME_MAX_LENGTH);

// Store identifiers (DESIGN §4.10), checked here for a clear 400 before the store checks them again.
export { SESSION_ID_PATTERN };
export const sessionIdInput = z
  .string()
  .regex(SESSION_ID_PATTERN, 'must be a session id (letters, digits, _ and -, at most 128)')
  .refine((id) => !RESERVED_SESSION_IDS.has(id), 'is a reserved name');
export const nodeIdInput = z.string().regex(NODE_ID_PATTERN, 'must be a message id (letters, digits, _ and -, at most 64)');
export const projectIdInput = z.string().regex(PROJECT_ID_PATTERN, 'must be a project id');
export const commitIdInput = z.string().regex(COMMIT_ID_PATTERN, 'must be a commit id (40 hex characters)');

/** Page sizes of every list: 1–200 (DESIGN §5); more is a 400, not a silent cap. */
const MAX_PAGE = 200;
export const limitInput = z.number().int().min(1).max(MAX_PAGE);
export const cursorInput = z.string().min(1).max(1024);

/** Short free-text fields (names, labels): bounded so that a row stays small in index.json. */
export const labelInput = (max = 200) =>
  z.string().refine((value) => [...value].length <= max, `must be at most ${max} characters`);
export const pathInput = z.string().min(1, 'must not be empty').max(4096).refine((path) => !path.includes('\0'), 'must not contain NUL');

// Share links (DESIGN §13): a malformed id is refused as one that does not exist, in the same words.
export const shareIdInput = z.string().max(64);
export const shareExpiryInput = z.enum(SHARE_EXPIRIES);
export const shareScopeInput = z.enum(['session', 'live', 'turn']);

// Organising sessions (DESIGN §16): the store normalises and checks a tag again (lower case, no spaces).
export const tagNameInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((value) => [...value].length <= MAX_TAG_CHARS, `must be at most ${MAX_TAG_CHARS} characters`)
  .refine((value) => !/[\s,]/u.test(value), 'must have no spaces or commas');
export const tagListInput = z.array(tagNameInput).max(MAX_TAGS_PER_SESSION);
export const sessionStateInput = z.enum(SESSION_STATES);
/** session.list's tag and state filter */
export const tagFilterInput = {
  tags: z.array(tagNameInput).max(MAX_TAGS_PER_SESSION).optional(),
  tagMode: z.enum(['all', 'any']).optional(),
  untagged: z.boolean().optional(),
  state: z.enum([...SESSION_STATES, 'none']).optional(),
};
