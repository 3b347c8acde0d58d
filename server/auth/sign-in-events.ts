import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The point where a single sign-on attempt ends, for whoever records sign-ins (the audit log,
 * DESIGN §17): `onSignIn(listener)` from start-up; every success and refusal through the
 * provider calls it once. `reason` is a refusal's code (lib/auth's OidcRefusal) or, for an
 * answer next-auth refused (wrong audience or issuer, a used or expired code), its message.
 */
export interface SignInEvent {
  method: 'oidc';
  result: 'success' | 'failure';
  userId: string | null;
  email: string | null;
  ip: string | null;
  reason: string | null;
}

type SignInListener = (event: SignInEvent) => void;

// On globalThis: serve.ts and the built /api/auth route each load their own copy of this module.
const KEY = Symbol.for('entity-memory.sign-in-listeners');
const holder = globalThis as typeof globalThis & { [KEY]?: Set<SignInListener> };
const listeners = (holder[KEY] ??= new Set<SignInListener>());
const requestIp = new AsyncLocalStorage<string | null>();

export function onSignIn(listener: SignInListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The /api/auth route runs next-auth inside this, so the callbacks know the client's address. */
export function withSignInRequest<T>(ip: string | null, run: () => T): T {
  return requestIp.run(ip, run);
}

export function reportSignIn(event: Omit<SignInEvent, 'ip'>): void {
  const full: SignInEvent = { ...event, ip: requestIp.getStore() ?? null };
  for (const listener of listeners) {
    try {
      listener(full);
    } catch (error) {
      // A listener's failure must not turn a sign-in into a 500.
      console.error(`[entity-memory] a sign-in listener failed: ${(error as Error).message}`);
    }
  }
}
