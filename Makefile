# HybridAI — the two commands (see README.md):
#   make demo    the guided tour on this machine
#   make test    the whole test suite
# Both run scripts/bootstrap first (idempotent; seconds when nothing changed).

SHELL := /bin/bash
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
export PKG_CONFIG_PATH := $(ROOT)/.deps/llama/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export HYBRIDAI_MODELS_DIR := $(ROOT)/.deps/models
SWIFT_BUILD_FLAGS ?=

.PHONY: demo test bench bundle bootstrap build release clean sanitize

bootstrap:
	@scripts/bootstrap

build: bootstrap
	swift build $(SWIFT_BUILD_FLAGS)

demo: bootstrap
	swift build $(SWIFT_BUILD_FLAGS) --product hybrid
	.build/debug/hybrid demo

# The Swift build needs only the system packages and llama.cpp's libraries; the rest of the bootstrap
# (models, Python clients, llama-server, LiteRT, …) installs meanwhile, its output in .build/bootstrap.log.
test:
	@scripts/bootstrap --libraries-only
	@mkdir -p .build
	@scripts/bootstrap >.build/bootstrap.log 2>&1 & rest=$$!; \
	  swift build $(SWIFT_BUILD_FLAGS) --build-tests; built=$$?; \
	  wait $$rest || { cat .build/bootstrap.log; exit 1; }; cat .build/bootstrap.log; exit $$built
	scripts/build-examples $(SWIFT_BUILD_FLAGS)
	rm -rf .build/test-bundle
	scripts/make-bundle --configuration debug --cpu native --swift-runtime shared --compression fast --with-bench --output .build/test-bundle >/dev/null
	scripts/run-tests $(SWIFT_BUILD_FLAGS)

bench:
	@scripts/bootstrap --bench
	swift build -c release --product hybrid
	swift build -c release --product hybrid-bench
	.build/release/hybrid bench on-device --reference .deps/llama-bench/llama-bench --output .build/bench-on-device.md
	.build/release/hybrid bench hybrid --reference .deps/llama-bench/llama-batched-bench --output .build/bench-hybrid.md
	.build/release/hybrid bench serving --reference .deps/llama-server/llama-server --batched-reference .deps/llama-bench/llama-batched-bench --output .build/bench-serving.md
	.build/release/hybrid bench speculation --reference .deps/llama-server/llama-server --output .build/bench-speculation.md
	.build/release/hybrid bench vision --reference .deps/llama-server/llama-mtmd-cli --output .build/bench-vision.md
	.build/release/hybrid bench guided --output .build/bench-guided.md
	.build/release/hybrid bench embeddings --reference .deps/llama-server/llama-server --texts 128 --rounds 3 --output .build/bench-embeddings.md
	.build/release/hybrid bench tflite --reference .deps/litert-venv/bin/python --output .build/bench-tflite.md
	.build/release/hybrid bench delivery --output .build/bench-delivery.md
	.build/release/hybrid bench hub --python .deps/venv/bin/python --output .build/bench-hub.md
	scripts/bench-service --hybrid .build/release/hybrid --output .build/bench-service.md
	scripts/soak --hybrid .build/release/hybrid --duration 600 --max-rss-slope 0 --output .build/bench-soak.md

# The test suite under AddressSanitizer (memory errors), in a build of its own (.build-asan); not part of
# `make test`. `scripts/sanitize thread` runs it under ThreadSanitizer (see docs/testing.md).
sanitize: bootstrap
	scripts/sanitize address

# A relocatable tarball: dist/hybrid-VERSION-linux-ARCH.tar.gz (static Swift runtime, llama.cpp in lib/,
# every CPU variant). `make test` makes a quick one: --configuration debug --cpu native --swift-runtime shared --compression fast.
BUNDLE_FLAGS ?=
bundle:
	scripts/make-bundle $(BUNDLE_FLAGS)

clean:
	rm -rf .build
