// A small line chart as a real PNG, with no dependencies: the pixels drawn here, then the PNG
// format by hand (IHDR, one zlib-compressed IDAT, IEND, each chunk with its CRC-32).
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** An RGB PNG of `width` x `height` from a pixel function (x, y) -> [r, g, b]. */
export function encodePng(width, height, pixel) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter method, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** The demo's chart: `values` (one a column) as a blue line over a light grid. */
export function plotPng(values, width = 480, height = 240) {
  const pad = 20;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const yOf = (v) => Math.round(height - pad - ((v - min) / (max - min || 1)) * (height - 2 * pad));
  const xOf = (i) => Math.round(pad + (i / Math.max(1, values.length - 1)) * (width - 2 * pad));
  // the line, as the set of pixels it covers (each segment drawn with enough steps to be solid)
  const line = new Set();
  for (let i = 1; i < values.length; i++) {
    const [x0, y0, x1, y1] = [xOf(i - 1), yOf(values[i - 1]), xOf(i), yOf(values[i])];
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let s = 0; s <= steps; s++) {
      const x = Math.round(x0 + ((x1 - x0) * s) / steps);
      const y = Math.round(y0 + ((y1 - y0) * s) / steps);
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) line.add((y + dy) * width + x + dx);
    }
  }
  return encodePng(width, height, (x, y) => {
    if (line.has(y * width + x)) return [37, 99, 235];
    if (x === pad || y === height - pad) return [60, 60, 60];
    if ((x - pad) % 40 === 0 || (height - pad - y) % 40 === 0) return [229, 231, 235];
    return [255, 255, 255];
  });
}
