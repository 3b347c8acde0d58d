import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { rules } from '@secretlint/secretlint-rule-preset-recommend';

/**
 * redact.ts runs secretlint's rules itself, without secretlint's core (which is async, per file,
 * and reads config): it calls each rule's `create(context, options)` once and then `file(source)`
 * per text, collecting `context.report({ range })`. That is secretlint's internal rule contract, so
 * the preset is pinned to an exact version and this test holds the contract: an upgrade that
 * changes the rule set, the entry point, the synchronous scan or the shape of a report fails here,
 * naming what changed, instead of silently letting secrets through (issue 32 item 7).
 */
interface Report {
  message?: unknown;
  range: unknown;
}
interface ContractRule {
  meta: { id: string };
  create(context: unknown, options: unknown): { file?(source: unknown): unknown };
}

const PINNED = '13.1.0';
const RULE_IDS = [
  'aws', 'gcp', 'privatekey', 'npm', 'basicauth', 'slack', 'sendgrid', 'shopify', 'stripe', 'github', 'gitlab', 'grafana', 'openai', 'anthropic',
  'groq', 'huggingface', 'linear', 'notion', '1password', 'database-connection-string', 'hashicorp-vault', 'vercel', 'databricks', 'docker', 'figma',
  'cloudflare', 'tailscale', 'filter-comments',
].map((name) => `@secretlint/secretlint-rule-${name}`);

// Invented secrets the preset's rules (not our own extra patterns) recognise, one per rule tested.
const SAMPLES: Record<string, string> = {
  '@secretlint/secretlint-rule-aws': 'AKIAZ7Q3X5W2R4T6Y8U1',
  '@secretlint/secretlint-rule-github': `ghp_${'R4nd0mT0k3n'.repeat(3)}abc`,
  '@secretlint/secretlint-rule-slack': 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  '@secretlint/secretlint-rule-stripe': 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
  '@secretlint/secretlint-rule-basicauth': 'https://deploy:s3cr3t-pass-w0rd@example.org/repo.git',
};

function scanWith(rule: ContractRule, text: string, options: unknown = {}): { reports: Report[]; returned: unknown } {
  const reports: Report[] = [];
  const context = { createTranslator: () => (key: string) => key, report: (descriptor: Report) => reports.push(descriptor), ignore: () => {} };
  const scanner = rule.create(context, options);
  const returned = scanner.file?.({ content: text, filePath: 'message.txt', ext: '.txt', contentType: 'text' });
  return { reports, returned };
}

const preset = rules as unknown as ContractRule[];

describe('secretlint rule contract (the preset is pinned and used without its core)', () => {
  it(`is the pinned version ${PINNED}, in package.json and installed`, () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['@secretlint/secretlint-rule-preset-recommend']).toBe(PINNED);
    const require = createRequire(import.meta.url);
    const installed = JSON.parse(readFileSync(require.resolve('@secretlint/secretlint-rule-preset-recommend/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(PINNED);
  });

  it('has exactly the rules redact.ts was written against', () => {
    expect(preset.map((rule) => rule.meta.id)).toEqual(RULE_IDS);
  });

  it('gives every text rule a synchronous file() entry point from create(context, options)', () => {
    for (const rule of preset.filter((candidate) => candidate.meta.id !== '@secretlint/secretlint-rule-filter-comments')) {
      const { returned } = scanWith(rule, 'nothing secret here');
      // a Promise here would mean findings arrive after redact.ts has already written the text
      expect(returned instanceof Promise, rule.meta.id).toBe(false);
    }
  });

  for (const [id, secret] of Object.entries(SAMPLES)) {
    it(`${id.replace('@secretlint/secretlint-rule-', '')}: reports { range: [start, end] } over the secret, synchronously`, () => {
      const rule = preset.find((candidate) => candidate.meta.id === id)!;
      const text = `before ${secret} after`;
      const { reports } = scanWith(rule, text, id.endsWith('-aws') ? { enableIDScanRule: true } : {});
      expect(reports.length).toBeGreaterThan(0);
      for (const report of reports) {
        expect(Array.isArray(report.range) && report.range.length === 2 && report.range.every((n) => Number.isInteger(n))).toBe(true);
        const [start, end] = report.range as [number, number];
        expect(secret).toContain(text.slice(start, end));
        expect(end - start).toBeGreaterThan(3);
      }
    });
  }
});
