/**
 * Whether the clients can run in a network namespace of their own with loopback only
 * (`unshare -rn`, an unprivileged user namespace, then `ip link set lo up` inside it). Where that
 * works nothing a client does can leave the machine; elsewhere the clients run in the host's
 * namespace and only the stand-in's base URL keeps them on 127.0.0.1.
 */
import { spawnSync } from 'node:child_process';

let checked: boolean | undefined;

export function loopbackNamespaceWorks(): boolean {
  if (checked === undefined) {
    if (process.platform !== 'linux' || process.env.PYTHON_SESSION_NO_NETNS) checked = false;
    else checked = spawnSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  }
  return checked;
}
