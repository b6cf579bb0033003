/**
 * The tray icons, drawn in code so they can be regenerated exactly and checked in tests: a
 * rounded square in the state's colour with a white glyph. The glyph differs by state too — a
 * prompt when idle, three dots when busy, a cross when dead — so the state never rests on colour
 * alone. Anti-aliased by 4×4 supersampling of signed distances.
 *
 * `node dist/app/electron/generate-icons.js` writes them to resources/icons/.
 */
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { packageRoot } from '../core/tray-api.js';
import type { TrayIconState } from './tray-state.js';

export function iconsDir(): string {
  return join(packageRoot(), 'resources', 'icons');
}

export const ICON_STATES: readonly TrayIconState[] = ['idle', 'busy', 'dead', 'offline'];
/** 16 px for trays at 1×, 32 px at 2× (Electron picks `name@2x.png` by itself), 256 for the window. */
export const ICON_SIZES = [16, 32, 256] as const;

const COLORS: Record<TrayIconState, [number, number, number]> = {
  idle: [31, 111, 235], // blue: ready
  busy: [191, 135, 0], // amber: running
  dead: [207, 34, 46], // red: needs attention
  offline: [110, 118, 129], // grey: no daemon
};

type Shape = (x: number, y: number) => number; // signed distance in unit square coordinates

function segment(ax: number, ay: number, bx: number, by: number, radius: number): Shape {
  return (x, y) => {
    const px = x - ax;
    const py = y - ay;
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - dx * t, py - dy * t) - radius;
  };
}

function circle(cx: number, cy: number, r: number): Shape {
  return (x, y) => Math.hypot(x - cx, y - cy) - r;
}

function roundedSquare(inset: number, radius: number): Shape {
  return (x, y) => {
    const half = 0.5 - inset - radius;
    const qx = Math.abs(x - 0.5) - half;
    const qy = Math.abs(y - 0.5) - half;
    return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
  };
}

const union = (...shapes: Shape[]): Shape => (x, y) => Math.min(...shapes.map((s) => s(x, y)));

function glyph(state: TrayIconState): Shape {
  const w = 0.075; // stroke half-width
  switch (state) {
    case 'idle':
    case 'offline':
      return union(segment(0.3, 0.3, 0.5, 0.5, w), segment(0.5, 0.5, 0.3, 0.7, w), segment(0.58, 0.7, 0.72, 0.7, w));
    case 'busy':
      return union(circle(0.28, 0.5, 0.09), circle(0.5, 0.5, 0.09), circle(0.72, 0.5, 0.09));
    case 'dead':
      return union(segment(0.32, 0.32, 0.68, 0.68, w), segment(0.68, 0.32, 0.32, 0.68, w));
  }
}

/** RGBA pixels of one icon. */
export function drawTrayIcon(state: TrayIconState, size: number): PNG {
  const png = new PNG({ width: size, height: size });
  const background = roundedSquare(0.03, 0.2);
  const mark = glyph(state);
  const [r, g, b] = COLORS[state];
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let cover = 0;
      let ink = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          if (background(x, y) <= 0) {
            cover++;
            if (mark(x, y) <= 0) ink++;
          }
        }
      }
      const n = samples * samples;
      const i = (py * size + px) * 4;
      const white = cover ? ink / cover : 0;
      png.data[i] = Math.round(r + (255 - r) * white);
      png.data[i + 1] = Math.round(g + (255 - g) * white);
      png.data[i + 2] = Math.round(b + (255 - b) * white);
      png.data[i + 3] = Math.round((255 * cover) / n);
    }
  }
  return png;
}

/** File name for a state and size: tray-busy.png, tray-busy@2x.png, app-idle.png (256). */
export function iconFileName(state: TrayIconState, size: (typeof ICON_SIZES)[number]): string {
  if (size === 256) return `app-${state}.png`;
  return size === 32 ? `tray-${state}@2x.png` : `tray-${state}.png`;
}

export function encodeIcon(png: PNG): Buffer {
  return PNG.sync.write(png, { colorType: 6 });
}
