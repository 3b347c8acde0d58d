import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptions, isHttpsRequest } from '@/server/auth/options';

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options per request: Secure cookies depend on whether this request came over https.
async function handler(req: NextRequest, context: RouteContext): Promise<Response> {
  return NextAuth(req, context, authOptions(isHttpsRequest(req.headers)));
}

export { handler as GET, handler as POST };
