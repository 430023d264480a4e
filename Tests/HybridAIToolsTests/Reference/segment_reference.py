"""Runs a segmentation .tflite model once with Google's Python LiteRT interpreter: the reference
for SegmentPersonTool's tests.

usage: segment_reference.py MODEL INPUT OUTPUT [--threads N]

INPUT holds the raw float32 bytes of the model's single input tensor (already preprocessed);
OUTPUT receives the raw float32 bytes of its first output tensor. The output's shape is written
to stdout as comma-separated integers.
"""

import argparse

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    interpreter = Interpreter(model_path=args.model, num_threads=args.threads)
    interpreter.allocate_tensors()
    (input_detail,) = interpreter.get_input_details()
    if np.dtype(input_detail["dtype"]) != np.float32:
        raise SystemExit(f"the model's input is {np.dtype(input_detail['dtype']).name}, not float32")
    with open(args.input, "rb") as handle:
        values = np.frombuffer(handle.read(), dtype=np.float32)
    shape = [int(d) for d in input_detail["shape"]]
    if values.size != int(np.prod(shape)):
        raise SystemExit(f"the input holds {values.size} floats, the model wants {shape}")
    interpreter.set_tensor(input_detail["index"], values.reshape(shape))
    interpreter.invoke()
    output_detail = interpreter.get_output_details()[0]
    value = interpreter.get_tensor(output_detail["index"])
    if value.dtype != np.float32:
        raise SystemExit(f"the model's output is {value.dtype.name}, not float32")
    with open(args.output, "wb") as handle:
        handle.write(np.ascontiguousarray(value).tobytes())
    print(",".join(str(int(d)) for d in value.shape))


if __name__ == "__main__":
    main()
