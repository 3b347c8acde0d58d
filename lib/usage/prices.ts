/**
 * The price table (DESIGN §15): per model, US dollars per million tokens of input, output, cache
 * read and cache write, each with the day it is valid from. `data/auth/prices.json` holds the
 * admin's table; without it the shipped defaults stand. A figure is priced with the entry valid on
 * its day, so a new price changes only figures from its date on; a model none matches has no price.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFileSync, DIR_MODE } from '../fs/atomic-write.js';
import { CodedError } from '../errors/coded-error.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day that exists: Date.parse takes 2024-02-31 as 2 March, so the day must come back the same. */
export function isRealDay(day: string): boolean {
  const time = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === day;
}
const perMillion = z.number().finite().min(0).max(10_000);

export const priceSchema = z.object({
  model: z.string().trim().min(1).max(200),
  input: perMillion,
  output: perMillion,
  cacheRead: perMillion,
  cacheWrite: perMillion,
  /** the first UTC day it applies to, YYYY-MM-DD */
  from: z.string().regex(DAY, 'a day as YYYY-MM-DD').refine(isRealDay, 'not a real day'),
});
export type Price = z.infer<typeof priceSchema>;

const pricesFile = z.object({ version: z.literal(1), prices: z.array(priceSchema).max(10_000) });

/** The day the shipped defaults are valid from: figures before it have no shipped price. */
export const DEFAULTS_FROM = '2025-01-01';

/** The list prices of the models the proxy sees most (per million tokens, USD) as shipped. */
export const DEFAULT_PRICES: readonly Price[] = [
  { model: 'claude-opus-4-5', input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  { model: 'claude-opus-4-1', input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  { model: 'claude-opus-4', input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  { model: 'claude-sonnet-4-5', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  { model: 'claude-sonnet-4', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  { model: 'claude-haiku-4-5', input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  { model: 'claude-3-5-haiku', input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  // OpenAI bills no cache writes
  { model: 'gpt-5', input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  { model: 'gpt-5-codex', input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  { model: 'gpt-5-mini', input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
  { model: 'gpt-5-nano', input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
  { model: 'gpt-4.1', input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
  { model: 'gpt-4.1-mini', input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
  { model: 'gpt-4o', input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 },
  { model: 'gpt-4o-mini', input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 },
  { model: 'o3', input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
  { model: 'o4-mini', input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
].map((price) => ({ ...price, from: DEFAULTS_FROM }));

export class PriceError extends CodedError<'BAD_REQUEST' | 'INTERNAL_SERVER_ERROR'> {}

export const PRICES_FILE = join('auth', 'prices.json');

/** The table in force: the admin's file, or the shipped defaults. A broken file is an error, not silently the defaults. */
export function readPrices(dataDir: string): Price[] {
  let text: string;
  try {
    text = readFileSync(join(dataDir, PRICES_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [...DEFAULT_PRICES];
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const parsed = pricesFile.safeParse(json);
  if (!parsed.success) throw new PriceError('INTERNAL_SERVER_ERROR', `${PRICES_FILE} is not a price table: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data.prices;
}

/** The whole table, validated, written at once. */
export function writePrices(dataDir: string, prices: readonly Price[]): void {
  const checked = z.array(priceSchema).max(10_000).safeParse(prices);
  if (!checked.success) throw new PriceError('BAD_REQUEST', checked.error.issues[0]?.message ?? 'not a price table');
  const path = join(dataDir, PRICES_FILE);
  mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
  atomicWriteFileSync(path, `${JSON.stringify({ version: 1, prices: checked.data }, null, 2)}\n`);
}

/** One price set (a model from a day): it replaces the entry of the same model and day, others stay. */
export function setPrice(dataDir: string, price: Price): Price[] {
  const checked = priceSchema.safeParse(price);
  if (!checked.success) throw new PriceError('BAD_REQUEST', checked.error.issues[0]?.message ?? 'not a price');
  const table = readPrices(dataDir).filter((entry) => !(entry.model === checked.data.model && entry.from === checked.data.from));
  table.push(checked.data);
  table.sort((a, b) => a.model.localeCompare(b.model) || a.from.localeCompare(b.from));
  writePrices(dataDir, table);
  return table;
}

/**
 * Looks prices up by model and day. A model matches its own entries, else those of the longest
 * name it starts with followed by `-` (a dated snapshot `claude-sonnet-4-5-20250929` is priced as
 * `claude-sonnet-4-5`); of those, the latest valid on the day.
 */
export class PriceBook {
  private readonly byModel = new Map<string, Price[]>();
  private readonly resolved = new Map<string, Price[] | null>();

  constructor(prices: readonly Price[]) {
    for (const price of prices) {
      const list = this.byModel.get(price.model) ?? [];
      list.push(price);
      this.byModel.set(price.model, list);
    }
    for (const list of this.byModel.values()) list.sort((a, b) => a.from.localeCompare(b.from));
  }

  private entriesOf(model: string): Price[] | null {
    if (this.resolved.has(model)) return this.resolved.get(model)!;
    let found = this.byModel.get(model) ?? null;
    if (!found) {
      let best = '';
      for (const name of this.byModel.keys()) if (name.length > best.length && model.startsWith(`${name}-`)) best = name;
      found = best ? this.byModel.get(best)! : null;
    }
    this.resolved.set(model, found);
    return found;
  }

  /** The price of the model on this UTC day (YYYY-MM-DD), or null: no price. */
  at(model: string, day: string): Price | null {
    const entries = this.entriesOf(model);
    if (!entries) return null;
    let valid: Price | null = null;
    for (const entry of entries) if (entry.from <= day) valid = entry;
    return valid;
  }
}
