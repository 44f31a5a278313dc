import { crc32, deflateSync } from 'node:zlib';

/** An RGB PNG of `width` × `height` pixels with `imageData` (deflated scanlines, or anything) as its IDAT. */
function png(width: number, height: number, imageData: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', imageData),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A PNG whose header declares `width` × `height` pixels, followed by `compressed` bytes of image data (as
 * a bomb's would be: megabytes of deflated zeros standing for gigabytes of pixels).
 */
export function declaredPng(width: number, height: number, compressed: number): Buffer {
  return png(width, height, Buffer.concat([deflateSync(Buffer.alloc(64 * 1024)), Buffer.alloc(compressed)]));
}

/** A 2×2 PNG that decodes: a red pixel and a blue one on each row. */
export function tinyPng(): Buffer {
  const row = Buffer.from([0, 200, 40, 40, 40, 40, 200]);
  return png(2, 2, deflateSync(Buffer.concat([row, row])));
}
