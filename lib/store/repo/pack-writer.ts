import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { zlibSync } from 'fflate';
import { writeNewFileDurably } from '../../fs/atomic-write.js';
import { hashObject, type GitObjectType } from './git-objects.js';

/**
 * A whole history written as one pack (version 2, no deltas) and its index, instead of one
 * loose file per object: an import of 1,000 sessions of 50 turns would otherwise create and
 * fsync some 350,000 files. The background repack adds the deltas later, as for any repo.
 */
const TYPE_CODE: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
const MAX_SMALL_OFFSET = 0x7fffffff;

// Small objects (most of them: node files, meta.json, commits) are stored, not deflated: a
// zlib stream of node's costs ~100 µs to set up whatever its size, fflate's stored block a
// fraction of that; the repack later compresses. Large ones keep node's deflate.
const SMALL_OBJECT = 8 * 1024;

function zlibStream(type: GitObjectType, body: Buffer): Uint8Array {
  if (body.length < SMALL_OBJECT) return zlibSync(body, { level: 0 });
  // Trees are mostly 20-byte hashes that do not compress: stored, not deflated.
  return deflateSync(body, { level: type === 'tree' ? 0 : 1 });
}

function objectHeader(type: GitObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (TYPE_CODE[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

export interface PackObject {
  type: GitObjectType;
  body: Buffer;
}

/** Collects objects (each once, by oid) and writes them as objects/pack/pack-<sha>.{pack,idx}. */
export class PackBuilder {
  private readonly entries = new Map<string, PackObject>();

  add(type: GitObjectType, body: Buffer): string {
    const oid = hashObject(type, body);
    if (!this.entries.has(oid)) this.entries.set(oid, { type, body });
    return oid;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Both files fsynced; the index is renamed into place last, so git never sees a pack half written. */
  async write(gitdir: string): Promise<void> {
    const packDir = join(gitdir, 'objects', 'pack');
    mkdirSync(packDir, { recursive: true });
    const header = Buffer.alloc(12);
    header.write('PACK', 0, 'latin1');
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(this.entries.size, 8);
    const chunks: Uint8Array[] = [header];
    const records: { oid: string; offset: number; crc: number }[] = [];
    let offset = header.length;
    for (const [oid, object] of this.entries) {
      const head = objectHeader(object.type, object.body.length);
      const data = zlibStream(object.type, object.body);
      records.push({ oid, offset, crc: crc32(data, crc32(head)) });
      chunks.push(head, data);
      offset += head.length + data.length;
    }
    if (offset > MAX_SMALL_OFFSET) throw new Error('an imported history past 2 GB is not written as one pack');
    const packHash = createHash('sha1');
    for (const chunk of chunks) packHash.update(chunk);
    const packSum = packHash.digest();
    chunks.push(packSum);

    records.sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
    const fanout = Buffer.alloc(256 * 4);
    let index = 0;
    for (let byte = 0; byte < 256; byte++) {
      while (index < records.length && parseInt(records[index]!.oid.slice(0, 2), 16) <= byte) index++;
      fanout.writeUInt32BE(index, byte * 4);
    }
    const names = Buffer.concat(records.map((record) => Buffer.from(record.oid, 'hex')));
    const crcs = Buffer.alloc(records.length * 4);
    const offsets = Buffer.alloc(records.length * 4);
    records.forEach((record, i) => {
      crcs.writeUInt32BE(record.crc, i * 4);
      offsets.writeUInt32BE(record.offset, i * 4);
    });
    const idxBody = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout, names, crcs, offsets, packSum]);
    const idx = Buffer.concat([idxBody, createHash('sha1').update(idxBody).digest()]);

    const base = join(packDir, `pack-${packSum.toString('hex')}`);
    await Promise.all([writeNewFileDurably(`${base}.pack`, chunks, 0o444), writeNewFileDurably(`${base}.idx.tmp`, [idx], 0o444)]);
    await rename(`${base}.idx.tmp`, `${base}.idx`);
  }
}
