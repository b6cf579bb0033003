/**
 * A long session's cost per run: N short cells through one kernel (the engine, no MCP), with the
 * time per run and the kernel's resident memory every 5 000 cells. A run's cost should not grow
 * with the cells before it (kernel_startup.py item 13 lets old `_i<N>` go; before it, the names
 * scan walked every one: 4.3 ms a run at 5 000 cells, 6.6 ms at 20 000).
 *
 *   node dist/bench/long-session.js [cells]      (default 20 000; PYTHON_SESSION_TEST_PYTHON picks the Python)
 */
import { readFileSync } from 'node:fs';
import { KernelSupervisor, LocalProvisioner } from '../app/core/kernel/index.js';

const cells = Number(process.argv[2] ?? 20_000);
const every = 5_000;
const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3' }));
const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${kernel.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
let since = performance.now();
console.log('cells    ms a run (last 5 000)    kernel RSS');
for (let cell = 1; cell <= cells; cell++) {
  await kernel.execute(`x${cell % 50} = ${cell}`);
  if (cell % every === 0) {
    const now = performance.now();
    console.log(`${String(cell).padStart(6)}    ${((now - since) / every).toFixed(2).padStart(6)}                   ${residentMb().toFixed(1)} MB`);
    since = now;
  }
}
await kernel.shutdown();
