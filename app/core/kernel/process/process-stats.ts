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
