/**
 * docs/api.md from the routers: every procedure of appRouter with its kind (query or mutation),
 * who may call it (the procedure matrix of the access tests), its doc comment in
 * server/api/routers/<router>.ts and its input as the zod schema says. Around it, the hand-kept
 * parts: how to call, errors, the worked curl example (components/settings/curl-example.ts, the
 * same text Settings copies). `npx tsx scripts/gen-api-docs.ts` writes the file; `--check` exits 1
 * when it is out of date, which scripts/gen-api-docs.test.ts asserts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { curlExample } from '../components/settings/curl-example';
import { PROCEDURES, type Access } from '../e2e/fixtures/procedure-matrix';
import { PROCEDURE_SCOPES } from '../e2e/fixtures/procedure-scopes';
import { appRouter } from '../server/api/root';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const API_DOC = join(ROOT, 'docs', 'api.md');

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
}

const ACCESS_WORDS: Record<Access, string> = {
  public: 'anyone',
  protected: 'API token, sign-in cookie or CLI',
  cookie: 'sign-in cookie or CLI, not an API token',
  admin: 'an admin (cookie or CLI)',
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
};

const HUGE = 1e15;

function range(min: number | undefined, max: number | undefined): string {
  const low = min !== undefined && Math.abs(min) < HUGE ? min : undefined;
  const high = max !== undefined && Math.abs(max) < HUGE ? max : undefined;
  if (low !== undefined && high !== undefined) return ` ${low}–${high}`;
  if (low !== undefined) return ` ≥ ${low}`;
  if (high !== undefined) return ` ≤ ${high}`;
  return '';
}

/** A JSON Schema as a short TypeScript-like type, objects one field a line. */
function typeOf(schema: JsonSchema, indent = ''): string {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return [...new Set(alternatives.map((alternative) => typeOf(alternative, indent)))].join(' | ');
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, indent)).join(' | ');
  switch (schema.type) {
    case 'string': {
      const length = schema.maxLength !== undefined ? ` (≤ ${schema.maxLength} chars)` : schema.minLength ? ' (non-empty)' : '';
      return `${schema.format === 'email' ? 'email' : 'string'}${length}`;
    }
    case 'integer':
    case 'number':
      return `${schema.type}${range(schema.minimum, schema.maximum)}`;
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = schema.items ? typeOf(schema.items, indent) : 'any';
      return `${item.includes(' ') && !item.startsWith('{') ? `(${item})` : item}[]${schema.maxItems !== undefined ? ` (≤ ${schema.maxItems})` : ''}`;
    }
    case 'object': {
      const fields = Object.entries(schema.properties ?? {});
      if (fields.length === 0) return typeof schema.additionalProperties === 'object' ? `{ [key: string]: ${typeOf(schema.additionalProperties, indent)} }` : '{}';
      const inner = `${indent}  `;
      const required = new Set(schema.required ?? []);
      return `{\n${fields.map(([name, field]) => `${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(field, inner)}`).join('\n')}\n${indent}}`;
    }
    default:
      return 'any JSON';
  }
}

function inputOf(def: ProcedureDef): string | null {
  if (def.inputs.length === 0) return null;
  const merged = def.inputs.length === 1 ? def.inputs[0]! : def.inputs.reduce((all, next) => z.intersection(all, next));
  return typeOf(z.toJSONSchema(merged, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}

/** The doc comment of each procedure of a router file, by procedure name. */
function docComments(routerName: string): Map<string, string> {
  const comments = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(ROOT, 'server', 'api', 'routers', `${routerName}.ts`), 'utf8');
  } catch {
    return comments;
  }
  const source = ts.createSourceFile(`${routerName}.ts`, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.getText(source) === 'createTRPCRouter') {
      const object = node.arguments[0];
      if (object && ts.isObjectLiteralExpression(object)) {
        for (const property of object.properties) {
          const docs = ts.getJSDocCommentsAndTags(property).filter(ts.isJSDoc);
          const comment = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ').replace(/\s+/g, ' ').trim();
          if (property.name && comment) comments.set(property.name.getText(source), comment);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return comments;
}

export function renderApiDocs(): string {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: ProcedureDef }> } })._def.procedures;
  const access = new Map(PROCEDURES.map((row) => [row.path, row.access]));
  const byRouter = new Map<string, string[]>();
  for (const path of Object.keys(procedures)) {
    const [router] = path.split('.');
    byRouter.set(router!, [...(byRouter.get(router!) ?? []), path]);
  }
  const sections: string[] = [];
  for (const [router, paths] of byRouter) {
    const comments = docComments(router);
    sections.push(`### ${router}\n`);
    for (const path of paths) {
      const def = procedures[path]!._def;
      const name = path.slice(router.length + 1);
      const who = access.get(path);
      const scope = who === 'protected' ? PROCEDURE_SCOPES[path] : undefined;
      sections.push(`#### \`${path}\` · ${def.type}${who ? ` · ${ACCESS_WORDS[who]}` : ''}${scope ? ` (scope \`${scope}\`)` : ''}\n`);
      const comment = comments.get(name);
      if (comment) sections.push(`${comment}\n`);
      const input = inputOf(def);
      sections.push(input ? `\`\`\`ts\n${input}\n\`\`\`\n` : 'No input.\n');
    }
  }
  return `${HEADER}
## Write a session with curl

Create a token in Settings (its **Copy curl example** button copies this with the token and your
server filled in), then run it in a shell. Each call answers \`{"result":{"data":…}}\`.

\`\`\`sh
${curlExample({ origin: 'http://localhost:3000', token: 'em_your_token_here' }).trimEnd()}
\`\`\`

An agent normally repeats begin → append (its user message, its reply, tool calls and results
with \`calledBy\`) → finalize once per turn. \`turn.finalize\` commits the turn to the session's git
history and, when the session is bound to a project, the agent's file changes to the project's
repository (\`projectCommitSkipped\` says why not).

## Procedures

Generated from the routers by \`scripts/gen-api-docs.ts\` (\`npm run docs:api\`); a test fails when
this part is out of date. A field marked \`?\` may be left out.

${sections.join('\n')}`;
}

const HEADER = `# Entity Memory HTTP API

Every procedure is [tRPC](https://trpc.io) over plain JSON at \`/api/trpc/<router>.<procedure>\`:
no client library needed.

- **Queries** are \`GET\` with the input as URL-encoded JSON in \`?input=\`:
  \`curl -G --data-urlencode 'input={"limit":10}' …/api/trpc/session.list\`.
- **Mutations** are \`POST\` with the input as the JSON body and \`content-type: application/json\`.
- **Authentication**: \`Authorization: Bearer <token>\` with a personal API token (Settings → API
  tokens). A token can do what its owner can within its scopes (\`read\` for a query, \`write\` for a
  mutation, as each procedure below says; \`proxy\`, \`import\`, \`mcp\` for those routes) and its
  project, if it has one; never manage tokens, change the password or administer. A missing scope is
  403 naming it. The browser uses the sign-in cookie instead; cookie mutations must carry this
  server's \`Origin\`.
- **Answers**: \`{"result":{"data":<answer>}}\`. Times are milliseconds since 1970.
- **Errors**: \`{"error":{"message":…,"data":{"code":"BAD_REQUEST","httpStatus":400,…}}}\` with the
  HTTP status: 400 bad input (the message names the field), 401 no or a wrong credential, 403 not
  allowed, 404 unknown (another user's session answers exactly like one that does not exist), 409
  conflict, 412 precondition (e.g. no model configured), 413 too large, 429 too many.
- **Lists** are paged: \`limit\` (1–200) and the \`nextCursor\` of the previous page as \`cursor\`; a
  cursor the server did not issue is a 400.

Besides tRPC:

| endpoint | |
|---|---|
| \`GET /api/events\` | live events (server-sent events) of the caller; \`Last-Event-ID\` resumes |
| \`POST /api/attachments\` | multipart \`sessionId\`, \`file\` → \`{id, name, size, mime}\` |
| \`GET /api/attachments/<sessionId>/<id>\` | the file, always as a download |
| \`POST /api/sessions/archive\`, \`/unarchive\` | \`{"session_id":"…"}\` |
| \`GET /api/health\` | \`{ok: true}\` once the server is ready |
`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderApiDocs();
  if (process.argv.includes('--check')) {
    const current = readFileSync(API_DOC, 'utf8');
    if (current !== text) {
      process.stderr.write('docs/api.md is out of date: run npm run docs:api\n');
      process.exit(1);
    }
  } else {
    writeFileSync(API_DOC, text);
    process.stdout.write(`wrote ${API_DOC}\n`);
  }
}
