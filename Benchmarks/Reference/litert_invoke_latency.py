"""Reference for `hybrid bench tflite`: invoke latency of Python's LiteRT interpreter.

Usage: litert_invoke_latency.py MODEL THREADS RUNS SEED [WARM_UP_RUNS] [--rounds-from-stdin]

Loads MODEL, fills its inputs with deterministic pseudo-random values (the same 64-bit LCG as the
Swift side; float inputs are byte / 255, so both sides do the same work), invokes WARM_UP_RUNS
times untimed, then times RUNS invokes and prints one line of JSON: {"median_ms": …, "runs": …}.

With --rounds-from-stdin it prints {"ready": true} after the warm-up instead, then answers each
line "RUNS WARM_UP" read from standard input with a round: WARM_UP untimed invokes, RUNS timed
ones, one JSON line with their median. The Swift side alternates its own rounds with these, a
millisecond apart, so that both see the same state of a shared machine. It ends at end of input.
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


def prepared_interpreter(model, threads, seed):
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
    return interpreter


def timed_round(interpreter, runs, warm_up_runs):
    """The median of `runs` timed invokes (ms), after `warm_up_runs` untimed ones."""
    for _ in range(warm_up_runs):
        interpreter.invoke()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        interpreter.invoke()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return times[len(times) // 2]


def answer(line):
    print(json.dumps(line), flush=True)


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--rounds-from-stdin"]
    serve_rounds = len(arguments) != len(sys.argv) - 1
    model, threads, runs, seed = arguments[0], int(arguments[1]), int(arguments[2]), int(arguments[3])
    warm_up_runs = int(arguments[4]) if len(arguments) > 4 else 1
    interpreter = prepared_interpreter(model, threads, seed)
    if not serve_rounds:
        answer({"median_ms": timed_round(interpreter, runs, max(1, warm_up_runs)), "runs": runs})
        return
    timed_round(interpreter, 1, max(1, warm_up_runs))
    answer({"ready": True})
    for line in sys.stdin:
        round_runs, round_warm_up = (int(field) for field in line.split())
        answer({"median_ms": timed_round(interpreter, round_runs, round_warm_up), "runs": round_runs})


if __name__ == "__main__":
    main()
