import { CodedError } from '../errors/coded-error.js';

/**
 * How far an uploaded zip may unpack (issue 27: a 1 MB zip bomb wrote 1 GB to the temp disk).
 * Counted on the bytes the entries actually unpack to, not on what their headers claim; a header
 * that already claims too much is refused before any of its bytes are read.
 */
export interface ZipLimits {
  /** all the entries read, together */
  maxTotalBytes: number;
  /** one entry */
  maxEntryBytes: number;
  /** unpacked bytes per packed byte of one entry (deflate reaches 1,032; text about 5 to 20) */
  maxRatio: number;
  /** entries read (a state directory's files: each one is a file on disk) */
  maxEntries: number;
}

const GIB = 1024 * 1024 * 1024;

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxTotalBytes: 4 * GIB, maxEntryBytes: 1 * GIB, maxRatio: 200, maxEntries: 200_000 };

/** Below this an entry's ratio is not judged: small files of repeated text pack very well. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

const ENV: Record<keyof ZipLimits, string> = {
  maxTotalBytes: 'OPENPROGRAM_IMPORT_ZIP_MAX_BYTES',
  maxEntryBytes: 'OPENPROGRAM_IMPORT_ZIP_MAX_ENTRY_BYTES',
  maxRatio: 'OPENPROGRAM_IMPORT_ZIP_MAX_RATIO',
  maxEntries: 'OPENPROGRAM_IMPORT_ZIP_MAX_ENTRIES',
};

/** The limits, each from its variable when that is a whole number ≥ 1, else the default. */
export function zipLimitsFromEnv(env: Record<string, string | undefined> = process.env): ZipLimits {
  const limits = { ...DEFAULT_ZIP_LIMITS };
  for (const key of Object.keys(ENV) as (keyof ZipLimits)[]) {
    const value = Number(env[ENV[key]]);
    if (Number.isSafeInteger(value) && value >= 1) limits[key] = value;
  }
  return limits;
}

function sizeText(bytes: number): string {
  if (bytes >= GIB && bytes % GIB === 0) return `${bytes / GIB} GiB`;
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** A zip past one of its limits: the API answers 413 with this message; the import stopped there. */
export class ZipLimitError extends CodedError<'PAYLOAD_TOO_LARGE'> {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', `refused: ${message}; nothing more was unpacked`);
  }
}

/** Checks of one zip's entries as they are read: each throws a ZipLimitError past its limit. */
export class ZipBudget {
  private total = 0;
  private entries = 0;
  constructor(readonly limits: ZipLimits = zipLimitsFromEnv()) {}

  /** A new entry, before any of its bytes: its count and what its header declares (when it does). */
  admit(name: string, declared: { size?: number | undefined; originalSize?: number | undefined }): void {
    const { maxEntries, maxEntryBytes, maxRatio, maxTotalBytes } = this.limits;
    if (++this.entries > maxEntries) throw new ZipLimitError(`the zip holds more than ${maxEntries.toLocaleString('en-US')} entries to unpack (${ENV.maxEntries})`);
    const unpacked = declared.originalSize;
    if (unpacked === undefined) return;
    if (unpacked > maxEntryBytes) throw this.entryTooLarge(name);
    if (this.total + unpacked > maxTotalBytes) throw this.totalTooLarge();
    if (unpacked > RATIO_FLOOR_BYTES && unpacked / Math.max(1, declared.size ?? 0) > maxRatio) throw this.ratioTooHigh(name);
  }

  /** `bytes` more of an entry that has unpacked `entryBytes` (these included) from about `packedBytes`. */
  count(name: string, bytes: number, entryBytes: number, packedBytes: number): void {
    this.total += bytes;
    if (entryBytes > this.limits.maxEntryBytes) throw this.entryTooLarge(name);
    if (this.total > this.limits.maxTotalBytes) throw this.totalTooLarge();
    if (entryBytes > RATIO_FLOOR_BYTES && entryBytes / Math.max(1, packedBytes) > this.limits.maxRatio) throw this.ratioTooHigh(name);
  }

  private entryTooLarge(name: string): ZipLimitError {
    return new ZipLimitError(`the zip entry ${name} unpacks to more than ${sizeText(this.limits.maxEntryBytes)} (${ENV.maxEntryBytes})`);
  }
  private totalTooLarge(): ZipLimitError {
    return new ZipLimitError(`the zip unpacks to more than ${sizeText(this.limits.maxTotalBytes)} (${ENV.maxTotalBytes})`);
  }
  private ratioTooHigh(name: string): ZipLimitError {
    return new ZipLimitError(`the zip entry ${name} unpacks to more than ${this.limits.maxRatio} times its packed size, as a zip bomb does (${ENV.maxRatio})`);
  }
}
