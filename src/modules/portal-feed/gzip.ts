// gzip (RFC 1952) of a body produced in pieces, compressed synchronously inside the slice that
// produced each piece, so compression takes turns with the server's other work like the rest of
// a feed (turns.ts); CompressionStream would compress later, outside any slice. Each piece is a
// raw deflate of its own ending on a byte boundary (a sync flush, no final bit): deflate blocks
// that follow one another, which is one deflate stream; the end adds an empty final block, the
// CRC-32 and the length. Back-references never cross pieces, which costs a little of the ratio
// on 64 KiB pieces.
import { constants, crc32, deflateRawSync } from "node:zlib";

const HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]); // deflate, no name, no time, OS unknown
/** A final block of fixed Huffman codes holding only its end-of-block code. */
const FINAL_EMPTY_BLOCK = new Uint8Array([3, 0]);
const LEVEL = 6;

export class GzipPieces {
  private crc = 0;
  private length = 0;
  private started = false;

  /** The compressed bytes of the next piece (the header first). */
  push(piece: Uint8Array): Uint8Array {
    this.crc = crc32(piece, this.crc);
    this.length = (this.length + piece.byteLength) >>> 0; // ISIZE is the length modulo 2^32
    const deflated = deflateRawSync(piece, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
    if (this.started) return deflated;
    this.started = true;
    return concat(HEADER, deflated);
  }

  /** The last bytes of the member: the final block and the trailer. */
  end(): Uint8Array {
    const trailer = new Uint8Array(8);
    const view = new DataView(trailer.buffer);
    view.setUint32(0, this.crc >>> 0, true);
    view.setUint32(4, this.length, true);
    return this.started ? concat(FINAL_EMPTY_BLOCK, trailer) : concat(HEADER, FINAL_EMPTY_BLOCK, trailer);
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
