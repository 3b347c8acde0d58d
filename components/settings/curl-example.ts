/**
 * The worked "write a session with curl" example: create a session, begin a turn, append the
 * user's message and the reply, finalize, read the branch back. docs/api.md shows it with
 * placeholders (scripts/gen-api-docs.ts); Settings copies it with a new token and this server's
 * origin filled in. Plain POSIX shell and curl: nothing else to install.
 */
export function curlExample({ origin, token }: { origin: string; token: string }): string {
  return `# Write a session to Entity Memory with curl: create, begin, append, finalize.
TOKEN='${token.replace(/'/g, `'\\''`)}'
BASE='${origin.replace(/\/+$/, '').replace(/'/g, `'\\''`)}'
SESSION="curl-$(date +%s)"
call() { curl -sS --fail-with-body -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$2" "$BASE/api/trpc/$1"; echo; }

call session.create '{"id":"'"$SESSION"'","title":"Written with curl","source":"curl"}'
call turn.begin '{"sessionId":"'"$SESSION"'"}'
call message.append '{"sessionId":"'"$SESSION"'","message":{"role":"user","content":"What is 6 times 7?"}}'
call message.append '{"sessionId":"'"$SESSION"'","message":{"role":"assistant","content":"42."}}'
call turn.finalize '{"sessionId":"'"$SESSION"'","commitMessage":"turn: multiply"}'

# Read it back (a query is a GET with the input as URL-encoded JSON):
curl -sS -G -H "Authorization: Bearer $TOKEN" --data-urlencode 'input={"sessionId":"'"$SESSION"'"}' "$BASE/api/trpc/message.branch"; echo
`;
}
