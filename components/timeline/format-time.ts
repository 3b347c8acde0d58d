/**
 * One fixed rendering of a time for server and browser alike (a locale or time zone that
 * differs between the two would break hydration): `2026-12-01 08:01 UTC`.
 */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function shortSha(sha: string): string {
  return sha.slice(0, 8);
}
