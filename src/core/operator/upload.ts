/**
 * A file a request uploads (the console's JSONL import), as the core sees it: the bytes as they arrive,
 * and the length the client declared. It is written to a file as it streams, in constant memory, and
 * refused with PAYLOAD_TOO_LARGE once it passes the operator's limit (TRAWL_IMPORT_MAX_BYTES), so a
 * job starts on a whole file or not at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../../errors.js';

/** An upload: its bytes, read once, and the length the client declared (null: not declared). */
export interface ByteUpload {
  declaredBytes: number | null;
  chunks: AsyncIterable<Uint8Array>;
}

const tooLarge = (max: number) =>
  new ServiceError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${max} bytes (TRAWL_IMPORT_MAX_BYTES); split it, or import it on the server with trawl import.`,
  );

/**
 * Writes `upload` to `file` (its folder made if need be); its size in bytes. PAYLOAD_TOO_LARGE (and no
 * file left) once it passes `maxBytes`, by the declared length or as it streams.
 */
export async function spoolUpload(upload: ByteUpload, file: string, maxBytes: number): Promise<number> {
  if (upload.declaredBytes !== null && upload.declaredBytes > maxBytes) throw tooLarge(maxBytes);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const out = await fs.promises.open(file, 'wx', 0o600);
  let size = 0;
  try {
    for await (const chunk of upload.chunks) {
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      await out.write(chunk);
    }
    await out.close();
    return size;
  } catch (err) {
    await out.close().catch(() => undefined);
    await fs.promises.rm(file, { force: true });
    throw err;
  }
}
