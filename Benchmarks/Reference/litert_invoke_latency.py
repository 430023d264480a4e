"""Reference for `hybrid bench tflite`: invoke latency of Python's LiteRT interpreter.

Usage: litert_invoke_latency.py MODEL THREADS RUNS SEED [WARM_UP_RUNS]
Prints one line of JSON: {"median_ms": …, "runs": …}. Inputs are deterministic pseudo-random
(the same 64-bit LCG as the Swift side; float inputs are byte / 255), so both sides do the same work.
"""
import json
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def lcg_bytes(count, seed):
    state = seed & 0xFFFFFFFFFFFFFFFF
    out = bytearray(count)
    for index in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        out[index] = (state >> 56) & 0xFF
    return bytes(out)


def main():
    model, threads, runs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    warm_up_runs = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    interpreter = Interpreter(model_path=model, num_threads=threads)
    interpreter.allocate_tensors()
    for offset, detail in enumerate(interpreter.get_input_details()):
        elements = int(np.prod(detail["shape"]))
        if np.issubdtype(detail["dtype"], np.floating):
            raw = np.frombuffer(lcg_bytes(elements, seed + offset), dtype=np.uint8)
            values = (raw.astype(np.float64) / 255.0).astype(detail["dtype"]).reshape(detail["shape"])
        else:
            raw = lcg_bytes(elements * np.dtype(detail["dtype"]).itemsize, seed + offset)
            values = np.frombuffer(raw, dtype=detail["dtype"]).reshape(detail["shape"])
        interpreter.set_tensor(detail["index"], values)
    for _ in range(max(1, warm_up_runs)):  # untimed, as on the Swift side
        interpreter.invoke()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        interpreter.invoke()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(json.dumps({"median_ms": times[len(times) // 2], "runs": runs}))


if __name__ == "__main__":
    main()
