import type { DefaultSession } from 'next-auth';

// What our sign-in cookie carries besides next-auth's defaults: the user id and the session
// version, compared with the user's current one on every request.
declare module 'next-auth' {
  interface User {
    sessionVersion: number;
  }
  interface Session {
    user: { id: string; email: string; admin: boolean } & DefaultSession['user'];
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    uid?: string;
    sv?: number;
  }
}

export {};
