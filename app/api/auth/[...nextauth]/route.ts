import NextAuth from 'next-auth';
import { NextResponse, type NextRequest } from 'next/server';
import { malformedAuthBody } from '@/server/auth/auth-body';
import { clientIp } from '@/server/auth/client-ip';
import { authOptions, isHttpsRequest } from '@/server/auth/options';
import { withSignInRequest } from '@/server/auth/sign-in-events';
import { signOutAuditor } from '@/server/audit/audit-sign-in';

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options per request: Secure cookies depend on whether this request came over https.
async function handler(req: NextRequest, context: RouteContext): Promise<Response> {
  // next-auth parses a JSON body itself and throws on a malformed one: a 500 with an empty body.
  const refusal = req.method === 'POST' ? malformedAuthBody(req.headers.get('content-type'), await req.clone().text()) : null;
  if (refusal) return NextResponse.json({ error: refusal }, { status: 400 });
  const signOut = await signOutAuditor(req.method, req.url, req.headers);
  const response: Response = await withSignInRequest(clientIp(req.headers), () => NextAuth(req, context, authOptions(isHttpsRequest(req.headers))));
  await signOut?.(response.status);
  return response;
}

export { handler as GET, handler as POST };
