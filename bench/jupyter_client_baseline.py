"""Baseline for the benchmarks: the same measurements through Python's jupyter_client.

Prints one JSON object. Run by bench/*.ts with the interpreter under test.
"""
import json
import statistics
import sys
import threading
import time

from jupyter_client.manager import start_new_kernel


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    started = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="python3")
    start_ms = (time.perf_counter() - started) * 1000
    try:
        for _ in range(10):  # warm-up, as the Node side does
            kc.execute_interactive("1+1", output_hook=lambda m: None, timeout=30)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            kc.execute_interactive("1+1", output_hook=lambda m: None, timeout=30)
            times.append((time.perf_counter() - t0) * 1000)

        # Interrupt latency: from interrupt_kernel() to the reply of a busy loop.
        latencies = []
        for _ in range(5):
            done = threading.Event()
            stamp = {}

            def hook(msg):
                pass

            def run():
                kc.execute_interactive("while True: pass", output_hook=hook, timeout=60)
                stamp["t"] = time.perf_counter()
                done.set()

            thread = threading.Thread(target=run)
            thread.start()
            time.sleep(0.3)
            t0 = time.perf_counter()
            km.interrupt_kernel()
            done.wait(30)
            thread.join()
            latencies.append((stamp["t"] - t0) * 1000)

        # Output throughput: 10 MB printed.
        chunks = []
        t0 = time.perf_counter()
        kc.execute_interactive(
            "import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(100_000): sys.stdout.write(line)",
            output_hook=lambda m: chunks.append(len(m["content"].get("text", ""))) if m["msg_type"] == "stream" else None,
            timeout=300,
        )
        throughput_s = time.perf_counter() - t0
        print(json.dumps({
            "roundtrip_ms": times,
            "median_ms": statistics.median(times),
            "start_ms": start_ms,
            "interrupt_ms": latencies,
            "output_10mb_s": throughput_s,
            "output_chars": sum(chunks),
        }))
    finally:
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
