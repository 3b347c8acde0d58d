/** The compare page of two branches, by a node of each (DESIGN §14): plain, so server and client components share it. */
export function compareHref(sessionId: string, a: string, b: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
}
