"""Runs a .tflite model with Google's Python LiteRT interpreter: the reference for HybridAI's tests.

usage: litert_reference.py MODEL OUTPUT_DIR [--threads N] [--frames K] [--resize D,D,...]
                           [--input FILE ...]

Each --input FILE holds the raw bytes of one input tensor, in the order of get_input_details();
with --frames K it holds K such tensors back to back, and the model is invoked K times in a row
(state carries over, as in a streaming model such as okay_nabu), frame k of every input for run k.
Writes OUTPUT_DIR/output-<i>.bin (raw bytes of each output, in the order of get_output_details(),
the K runs back to back) and OUTPUT_DIR/details.json (names, dtypes, shapes and quantization of
inputs and outputs, and the signature keys). Each --resize gives a new shape for the next input
(resize_tensor_input, non-strict) before tensors are allocated.
"""

import argparse
import json
import os

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def describe(detail):
    scale, zero_point = detail["quantization"]
    return {
        "name": detail["name"],
        "dtype": np.dtype(detail["dtype"]).name,
        "shape": [int(d) for d in detail["shape"]],
        "scale": float(scale),
        "zero_point": int(zero_point),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("output_dir")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--frames", type=int, default=1)
    parser.add_argument("--resize", action="append", default=[])
    parser.add_argument("--input", action="append", default=[])
    args = parser.parse_args()

    interpreter = Interpreter(model_path=args.model, num_threads=args.threads)
    for position, shape in enumerate(args.resize):
        index = interpreter.get_input_details()[position]["index"]
        interpreter.resize_tensor_input(index, [int(d) for d in shape.split(",")])
    interpreter.allocate_tensors()
    inputs = interpreter.get_input_details()
    outputs = interpreter.get_output_details()
    if len(args.input) != len(inputs):
        raise SystemExit(f"the model has {len(inputs)} inputs, got {len(args.input)} files")
    frames = []
    for detail, path in zip(inputs, args.input):
        with open(path, "rb") as handle:
            raw = handle.read()
        values = np.frombuffer(raw, dtype=detail["dtype"])
        frames.append(values.reshape([args.frames] + [int(d) for d in detail["shape"]]))
    results = [[] for _ in outputs]
    for frame in range(args.frames):
        for detail, values in zip(inputs, frames):
            interpreter.set_tensor(detail["index"], values[frame])
        interpreter.invoke()
        for position, detail in enumerate(outputs):
            value = interpreter.get_tensor(detail["index"])
            results[position].append(np.ascontiguousarray(value).tobytes())
    os.makedirs(args.output_dir, exist_ok=True)
    for position, chunks in enumerate(results):
        with open(os.path.join(args.output_dir, f"output-{position}.bin"), "wb") as handle:
            handle.write(b"".join(chunks))
    with open(os.path.join(args.output_dir, "details.json"), "w") as handle:
        json.dump({"inputs": [describe(d) for d in inputs],
                   "outputs": [describe(d) for d in outputs],
                   "signatures": sorted(interpreter.get_signature_list().keys())}, handle)


if __name__ == "__main__":
    main()
