/**
 * The ledger's files under its state directory: the journal (`journal.jsonl`, one accepted transaction or airdrop a
 * line, appended before it is answered) and the snapshot (`ledger.snapshot`: a 4-byte little-endian length, the
 * ledger's bookkeeping as JSON, then litesvm's bank as `toBytes` gives it), stamped with the journal length it covers.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class LedgerStateFiles<Entry, Meta> {
  private readonly snapshot: string;
  private readonly journal: string;

  constructor(directory: string) {
    mkdirSync(directory, { recursive: true });
    this.snapshot = path.join(directory, 'ledger.snapshot');
    this.journal = path.join(directory, 'journal.jsonl');
  }

  append(entry: Entry): void {
    appendFileSync(this.journal, `${JSON.stringify(entry)}\n`);
  }

  /**
   * The journal's entries, oldest first. A last line cut short (a kill while appending it: that transaction was
   * never answered) is dropped, from the file too.
   */
  readJournal(): Entry[] {
    if (!existsSync(this.journal)) return [];
    const lines = readFileSync(this.journal, 'utf8').split('\n').filter((line) => line.trim() !== '');
    const entries: Entry[] = [];
    for (const line of lines) {
      try {
        entries.push(JSON.parse(line) as Entry);
      } catch {
        break;
      }
    }
    if (entries.length < lines.length) writeFileSync(this.journal, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    return entries;
  }

  /** Writes the snapshot (temp file, then rename: a kill leaves the previous snapshot whole). */
  writeSnapshot(meta: Meta, bank: Uint8Array): void {
    const metaBytes = Buffer.from(JSON.stringify(meta));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(metaBytes.length);
    const temporary = `${this.snapshot}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat([length, metaBytes, bank]));
    renameSync(temporary, this.snapshot);
  }

  readSnapshot(): { meta: Meta; bank: Uint8Array } | undefined {
    if (!existsSync(this.snapshot)) return undefined;
    const bytes = readFileSync(this.snapshot);
    const metaLength = bytes.readUInt32LE(0);
    return { meta: JSON.parse(bytes.subarray(4, 4 + metaLength).toString()) as Meta, bank: bytes.subarray(4 + metaLength) };
  }
}
