/**
 * Who may open a share link (OPENPROGRAM_SHARING): `off` nobody (and nobody may make one),
 * `login` any signed-in user of this instance, `public` anyone with the link.
 */
export type SharingMode = 'off' | 'login' | 'public';

export const SHARING_MODES: readonly SharingMode[] = ['off', 'login', 'public'];
export const DEFAULT_SHARING_MODE: SharingMode = 'login';

/**
 * The mode an environment value names. Unset or empty is the default; anything else unknown is
 * also `login` (never wider), with the reason for the log.
 */
export function parseSharingMode(value: string | undefined): { mode: SharingMode; warning: string | null } {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '') return { mode: DEFAULT_SHARING_MODE, warning: null };
  if ((SHARING_MODES as readonly string[]).includes(text)) return { mode: text as SharingMode, warning: null };
  return { mode: DEFAULT_SHARING_MODE, warning: `OPENPROGRAM_SHARING=${JSON.stringify(value)} is not off, login or public: using login` };
}

/** Whether a viewer (signed in or not) may open links at all under this mode. */
export function mayOpenShares(mode: SharingMode, signedIn: boolean): boolean {
  return mode === 'public' || (mode === 'login' && signedIn);
}
