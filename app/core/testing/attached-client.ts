/**
 * Another Jupyter client, for tests: Python's own `jupyter_client`, attached to a kernel by its
 * connection file as a person's IDE or `jupyter console --existing` would be, running one cell
 * and printing what the cell printed and displayed.
 */
import { execFile } from 'node:child_process';
import { TEST_PYTHON } from './test-python.js';

const ATTACHED_CLIENT = `
import sys
from jupyter_client import BlockingKernelClient

client = BlockingKernelClient(connection_file=sys.argv[1])
client.load_connection_file()
client.start_channels()
client.wait_for_ready(timeout=30)
printed = []

def take(message):
    kind, content = message["msg_type"], message["content"]
    if kind == "stream":
        printed.append(content["text"])
    elif kind in ("execute_result", "display_data"):
        printed.append(content["data"].get("text/plain", "") + "\\n")
    elif kind == "error":
        printed.append("%s: %s\\n" % (content["ename"], content["evalue"]))

reply = client.execute_interactive(sys.argv[2], output_hook=take, timeout=60)
sys.stdout.write("".join(printed))
sys.stdout.write("[execution_count %s]\\n" % reply["content"]["execution_count"])
client.stop_channels()
`;

/** Runs `code` on the kernel of `connectionFile` from a jupyter_client; resolves with what it printed. */
export function runInAttachedClient(connectionFile: string, code: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(TEST_PYTHON, ['-c', ATTACHED_CLIENT, connectionFile, code], { timeout: 90_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`the jupyter_client failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}
