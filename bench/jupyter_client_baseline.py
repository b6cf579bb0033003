"""Baseline for the benchmarks: the same measurements through Python's jupyter_client.

Run by bench/baseline.ts with the interpreter under test. It starts one kernel, prints
{"start_ms": ...}, then answers one JSON line per command on stdin, so the Node side can
interleave its own measurements with these and both meet the same machine load:

  roundtrip N   {"ms": [...]}       N executions of `1+1`
  interrupt     {"ms": x}           interrupt_kernel() of `while True: pass` to its reply
  output        {"s": x, "chars": n}  100,000 lines of 100 characters printed
  quit
"""
import json
import sys
import threading
import time

from jupyter_client.manager import start_new_kernel

OUTPUT_10MB = "import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(100_000): sys.stdout.write(line)"


def ignore(message):
    pass


def roundtrips(kc, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        kc.execute_interactive("1+1", output_hook=ignore, timeout=30)
        times.append((time.perf_counter() - t0) * 1000)
    return {"ms": times}


def interrupt(km, kc):
    stamp = {}

    def run():
        kc.execute_interactive("while True: pass", output_hook=ignore, timeout=60)
        stamp["t"] = time.perf_counter()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.3)
    t0 = time.perf_counter()
    km.interrupt_kernel()
    thread.join(30)
    return {"ms": (stamp["t"] - t0) * 1000}


def output(kc):
    chars = []

    def hook(message):
        if message["msg_type"] == "stream":
            chars.append(len(message["content"].get("text", "")))

    t0 = time.perf_counter()
    kc.execute_interactive(OUTPUT_10MB, output_hook=hook, timeout=300)
    return {"s": time.perf_counter() - t0, "chars": sum(chars)}


def main():
    started = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="python3")
    print(json.dumps({"start_ms": (time.perf_counter() - started) * 1000}), flush=True)
    try:
        for _ in range(10):  # warm-up, as the Node side does
            kc.execute_interactive("1+1", output_hook=ignore, timeout=30)
        for line in sys.stdin:
            command, *args = line.split()
            if command == "roundtrip":
                answer = roundtrips(kc, int(args[0]))
            elif command == "interrupt":
                answer = interrupt(km, kc)
            elif command == "output":
                answer = output(kc)
            elif command == "quit":
                break
            else:
                answer = {"error": "unknown command " + command}
            print(json.dumps(answer), flush=True)
    finally:
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
