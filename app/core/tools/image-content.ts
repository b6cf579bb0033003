/**
 * Images for the model: PNGs larger than the cap are downscaled (area
 * averaging, pure JS via pngjs) so one figure cannot blow a client's context;
 * the full-size file stays in the session's figures folder.
 */
import { PNG } from 'pngjs';
import type { SavedFigure } from '../sessions/figure-store.js';

export const MAX_EDGE = 1568; // the long edge vision models use without resampling
export const MAX_BYTES = 1_000_000;

export type ImageContent = { type: 'image'; data: string; mimeType: string };
export type TextContent = { type: 'text'; text: string };

export function downscalePng(bytes: Buffer, maxEdge = MAX_EDGE): Buffer {
  const source = PNG.sync.read(bytes);
  const scale = Math.max(source.width, source.height) / maxEdge;
  if (scale <= 1) return bytes;
  const width = Math.max(1, Math.round(source.width / scale));
  const height = Math.max(1, Math.round(source.height / scale));
  const target = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * scale);
    const y1 = Math.max(y0 + 1, Math.min(source.height, Math.floor((y + 1) * scale)));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * scale);
      const x1 = Math.max(x0 + 1, Math.min(source.width, Math.floor((x + 1) * scale)));
      const sum = [0, 0, 0, 0];
      for (let sy = y0; sy < y1; sy++) {
        for (let sx = x0; sx < x1; sx++) {
          const i = (sy * source.width + sx) * 4;
          for (let c = 0; c < 4; c++) sum[c] += source.data[i + c];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) target.data[o + c] = Math.round(sum[c] / n);
    }
  }
  return PNG.sync.write(target);
}

/** MCP content for one saved figure: the image (capped) and a line naming the file. */
export function figureContent(figure: SavedFigure): (ImageContent | TextContent)[] {
  const where = figure.path ? `saved to ${figure.path}` : `not saved: ${figure.error ?? 'the file could not be written'}`;
  if (figure.mimeType === 'image/svg+xml') return [{ type: 'text', text: `[SVG figure ${where}]` }];
  let bytes = figure.bytes;
  let note = '';
  if (figure.mimeType === 'image/png') {
    try {
      let edge = MAX_EDGE;
      let scaled = downscalePng(bytes, edge);
      while (scaled.length > MAX_BYTES && edge > 256) scaled = downscalePng(bytes, (edge = Math.round(edge * 0.7)));
      if (scaled !== bytes) note = ' (downscaled for this reply; the file is full size)';
      bytes = scaled;
    } catch {
      /* not a PNG we can read: send as is if small enough */
    }
  }
  if (bytes.length > MAX_BYTES) return [{ type: 'text', text: `[Figure too large to send (${bytes.length} bytes); ${where}]` }];
  return [
    { type: 'image', data: bytes.toString('base64'), mimeType: figure.mimeType },
    { type: 'text', text: `[figure ${where}${note}]` },
  ];
}
