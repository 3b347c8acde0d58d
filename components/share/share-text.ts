import type { RouterOutputs } from '@/trpc/types';

export type OwnedShareLink = RouterOutputs['share']['list']['links'][number];
export type SharingMode = RouterOutputs['share']['list']['mode'];
export type ShareExpiry = '1d' | '7d' | '30d' | 'never';

export const EXPIRY_CHOICES: ReadonlyArray<{ value: ShareExpiry; label: string }> = [
  { value: '1d', label: '1 day' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: 'never', label: 'Never' },
];

/** Who can open a link under the instance's mode, in one sentence. */
export function audienceOf(mode: SharingMode): string {
  if (mode === 'public') return 'Anyone with a link can read what it shows, without signing in.';
  if (mode === 'login') return 'Anyone signed in to this server who has a link can read what it shows.';
  return 'Sharing is turned off on this server (OPENPROGRAM_SHARING=off): no link can be made or opened.';
}

/** What a link shows, in a few words. */
export function scopeOf(link: OwnedShareLink): string {
  if (link.scope === 'live') return 'Live: follows new turns';
  if (link.scope === 'turn') return `Only turn ${link.turn}`;
  return `Up to turn ${link.turn}`;
}
