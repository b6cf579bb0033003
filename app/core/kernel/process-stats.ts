/** Resident memory of a process, without spawning on Linux (reads /proc). */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export async function residentBytes(pid: number | undefined): Promise<number | null> {
  if (!pid) return null;
  try {
    if (process.platform === 'linux') {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const match = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
      return match ? Number(match[1]) * 1024 : null;
    }
    if (process.platform === 'win32') return null;
    const out = await new Promise<string>((resolve, reject) =>
      execFile('ps', ['-o', 'rss=', '-p', String(pid)], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    const kb = Number(out.trim());
    return Number.isFinite(kb) ? kb * 1024 : null;
  } catch {
    return null;
  }
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null) return 'unknown';
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}
