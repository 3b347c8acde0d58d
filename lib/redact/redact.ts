import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';

/**
 * Secrets out of text before anything is written (DESIGN §10): the scanners of secretlint's
 * recommended preset, plus the few kinds it has no rule for (JWTs, Google API keys, short PEM
 * blocks, Authorization values), taken from gitleaks' rules of the same names. Each match becomes
 * `[REDACTED:<kind>]`. The rules run without secretlint's (async, per-file) core, through their
 * create()/file()/report() contract: the preset is pinned and secretlint-contract.test.ts holds it.
 */
export interface RedactResult {
  text: string;
  count: number;
  /** the kinds found, each once, in order of first appearance */
  kinds: string[];
}

interface Finding {
  start: number;
  end: number;
  kind: string;
}

interface ScannerRule {
  meta: { id: string };
  create(context: unknown, options: unknown): { file?(source: unknown): unknown };
}

// Comment directives (secretlint-disable) would let a message opt itself out: never here.
const SKIPPED_RULES = new Set(['@secretlint/secretlint-rule-filter-comments']);
// The access key id rule is off in secretlint by default (ids alone are not secret); an AKIA… id
// next to its secret in a chat is exactly what must not reach git.
const RULE_OPTIONS: Record<string, unknown> = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } };
const KIND_NAMES: Record<string, string> = { privatekey: 'private-key', gcp: 'google', basicauth: 'basic-auth' };

function kindOfRule(id: string): string {
  const short = id.replace(/^@secretlint\/secretlint-rule-/, '');
  return KIND_NAMES[short] ?? short;
}

/** [kind, pattern, group holding the secret (0: the whole match)] — gitleaks' rules, compacted. */
const EXTRA_RULES: [string, RegExp, number][] = [
  // gitleaks "jwt"
  ['jwt', /\bey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{10,}={0,2}/g, 0],
  // provider keys of a length the preset's exact-length rules miss (gitleaks "anthropic-api-key", "openai-api-key" loosened)
  ['anthropic', /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/g, 0],
  ['openai', /(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/g, 0],
  // gitleaks "gcp-api-key"
  ['google', /\bAIza[0-9A-Za-z_-]{35}\b/g, 0],
  // the value of an Authorization (or Proxy-Authorization, X-Api-Key) header, quoted or not
  ['authorization', /\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?((?:(?:Bearer|Basic|Token|Digest|Bot)\s+)?[^\s"',;]{6,})/gi, 1],
  ['authorization', /\bx-api-key\b["']?\s*[:=]\s*["']?([^\s"',;]{8,})/gi, 1],
];

const PEM_BEGIN = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_BODY = /[A-Za-z0-9+/=\s]*/y;

/**
 * PEM private key blocks (gitleaks "private-key", also ones too short for secretlint's rule), and
 * a block whose end was cut off (a truncated paste: its header and the base64 after it). Found in
 * one pass: a regex that looks ahead for the END from every BEGIN rescans the rest of the text
 * each time, and a megabyte of headers with no END then took minutes (issue 27 item 1). Here the
 * END search only moves forward, and "no END after p" holds for every later header too.
 */
function pemFindings(text: string, findings: Finding[]): void {
  if (!text.includes('PRIVATE KEY')) return;
  const lastEndLiteral = text.lastIndexOf('-----END');
  let nextEnd: { start: number; end: number } | null | undefined; // undefined: not searched yet
  PEM_BEGIN.lastIndex = 0;
  for (let header = PEM_BEGIN.exec(text); header; header = PEM_BEGIN.exec(text)) {
    const headerEnd = header.index + header[0].length;
    if (nextEnd === undefined || (nextEnd !== null && nextEnd.start < headerEnd)) {
      PEM_END.lastIndex = headerEnd;
      const found = PEM_END.exec(text);
      nextEnd = found ? { start: found.index, end: found.index + found[0].length } : null;
    }
    if (nextEnd) {
      findings.push({ start: header.index, end: nextEnd.end, kind: 'private-key' });
      PEM_BEGIN.lastIndex = nextEnd.end;
    } else if (lastEndLiteral < headerEnd) {
      PEM_BODY.lastIndex = headerEnd;
      PEM_BODY.exec(text);
      findings.push({ start: header.index, end: PEM_BODY.lastIndex, kind: 'private-key' });
      PEM_BEGIN.lastIndex = Math.max(PEM_BODY.lastIndex, headerEnd);
    }
  }
}

/** Where the scanners report while one text is scanned (scanning is synchronous, one text at a time). */
let findingsOfCurrentScan: Finding[] = [];

// Each rule is set up once: its create() builds closures and translators, too costly per message.
const scanners = (secretlintRules as unknown as ScannerRule[])
  .filter((rule) => !SKIPPED_RULES.has(rule.meta.id))
  .map((rule) => {
    const kind = kindOfRule(rule.meta.id);
    const context = {
      createTranslator: () => (key: string) => key,
      report: (descriptor: { range: [number, number] }) => findingsOfCurrentScan.push({ start: descriptor.range[0], end: descriptor.range[1], kind }),
      ignore: () => {},
    };
    return rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
  });

function scan(text: string): Finding[] {
  const findings: Finding[] = [];
  findingsOfCurrentScan = findings;
  const source = { content: text, filePath: 'message.txt', ext: '.txt', contentType: 'text' };
  // Text scanners run synchronously; only the .p12/.json file scanners are async, and a message is neither.
  for (const scanner of scanners) scanner.file?.(source);
  pemFindings(text, findings);
  for (const [kind, pattern, group] of EXTRA_RULES) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const value = match[group];
      if (!value) continue;
      const start = match.index + (group === 0 ? 0 : match[0].lastIndexOf(value));
      findings.push({ start, end: start + value.length, kind });
    }
  }
  return findings;
}

/** Overlapping findings become one span, named by the widest of them (a PEM block over its lines). */
function mergeSpans(findings: Finding[]): Finding[] {
  const sorted = findings.filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Finding[] = [];
  for (const finding of sorted) {
    const last = merged[merged.length - 1];
    if (last && finding.start < last.end) {
      if (finding.end > last.end) last.end = finding.end;
      continue;
    }
    merged.push({ ...finding });
  }
  return merged;
}

/** Redact one string. */
export function redactText(text: string): RedactResult {
  if (text.length < 8) return { text, count: 0, kinds: [] };
  const spans = mergeSpans(scan(text));
  if (spans.length === 0) return { text, count: 0, kinds: [] };
  let out = '';
  let at = 0;
  const kinds: string[] = [];
  for (const span of spans) {
    out += `${text.slice(at, span.start)}[REDACTED:${span.kind}]`;
    at = span.end;
    if (!kinds.includes(span.kind)) kinds.push(span.kind);
  }
  return { text: out + text.slice(at), count: spans.length, kinds };
}

export interface RedactValueResult<T> {
  value: T;
  count: number;
  kinds: string[];
}

const HEADER_KEY = /^(?:proxy-)?authorization$|^x-api-key$/i;
// Lines of their own: every rule's word and line boundaries see a string's ends as they are alone.
const JOIN = '\n\n';

/**
 * Whether any string of the value (keys too) could hold a secret: one scan of them all joined.
 * Each scan costs some 30 µs whatever its length (a hundred rules set up), and a message has
 * dozens of short strings, so this is several times faster than a scan each. Joined, each
 * string is bounded by line ends as if alone, so what a string alone matches is still found
 * (redact.test.ts checks this property against a scan of each string); any finding, or an
 * Authorization-like key, sends the value through the per-string walk, which decides.
 */
export function mayHoldSecret(value: unknown): boolean {
  const parts: string[] = [];
  let headerKey = false;
  const collect = (item: unknown): void => {
    if (typeof item === 'string') {
      if (item.length >= 8) parts.push(item);
    } else if (Array.isArray(item)) {
      for (const inner of item) collect(inner);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        if (typeof inner === 'string' && inner.length > 0 && HEADER_KEY.test(key)) headerKey = true;
        collect(key);
        collect(inner);
      }
    }
  };
  collect(value);
  if (headerKey) return true;
  if (parts.length === 0) return false;
  return mergeSpans(scan(parts.join(JOIN))).length > 0;
}

/** Redact every string inside a JSON value (keys too: a header name may carry a token). */
export function redactValue<T>(value: T): RedactValueResult<T> {
  if (!mayHoldSecret(value)) return { value, count: 0, kinds: [] };
  let count = 0;
  const kinds: string[] = [];
  const note = (result: RedactResult): string => {
    count += result.count;
    for (const kind of result.kinds) if (!kinds.includes(kind)) kinds.push(kind);
    return result.text;
  };
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return note(redactText(item));
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(item)) {
        // Authorization-like headers stored as {authorization: "Bearer …"}: the key names the kind.
        if (typeof inner === 'string' && HEADER_KEY.test(key) && inner.length > 0 && !inner.startsWith('[REDACTED:')) {
          out[note(redactText(key))] = note({ text: '[REDACTED:authorization]', count: 1, kinds: ['authorization'] });
        } else {
          out[note(redactText(key))] = walk(inner);
        }
      }
      return out;
    }
    return item;
  };
  const redacted = walk(value) as T;
  return { value: count === 0 ? value : redacted, count, kinds };
}

/** The parts of a message that are written to disk: content, input, metadata. */
export interface RedactableMessage {
  content: unknown;
  input?: unknown;
  metadata?: Record<string, unknown>;
}

/** A message with its content, input and metadata redacted, and how many secrets were taken out. */
export function redactMessage<M extends RedactableMessage>(message: M): { message: M; count: number; kinds: string[] } {
  const result = redactValue({ content: message.content, input: message.input, metadata: message.metadata });
  if (result.count === 0) return { message, count: 0, kinds: [] };
  const out = { ...message, content: result.value.content } as M;
  if (message.input !== undefined) out.input = result.value.input;
  if (message.metadata !== undefined) out.metadata = result.value.metadata;
  return { message: out, count: result.count, kinds: result.kinds };
}

// Many messages are checked at once through this (an import's whole session) before each is redacted.
redactMessage.mayHoldSecret = mayHoldSecret;

/**
 * Many messages (a background job of the store's, see lib/store's redact-parts.ts): one scan of
 * them all first, which finds nothing in most, then each that may hold a secret.
 */
export function redactMessages<M extends RedactableMessage>(messages: M[]): { message: M; count: number }[] {
  if (!mayHoldSecret(messages)) return messages.map((message) => ({ message, count: 0 }));
  return messages.map((message) => {
    const { message: clean, count } = redactMessage(message);
    return { message: clean, count };
  });
}
