/** A commit's short name, as git shows it. (Times: components/session/local-time.tsx.) */
export function shortSha(sha: string): string {
  return sha.slice(0, 8);
}
