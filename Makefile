# newsstand — `make run` opens the shelf on the bundled demo catalog; `make test` runs every test.
SWIFT ?= swift
ARGS ?=
BIN := .build/debug/newsstand

# System packages: the libraries we link (libcurl, ncursesw, SQLite for the reading state, stb_image for covers), and what the tests drive (tmux), compare with (curl) or serve TLS with (python3).
APT_PACKAGES := libcurl4-openssl-dev libncursesw5-dev libsqlite3-dev libstb-dev tmux curl python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build run test test-tsan test-asan clean

deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

run: build
	$(BIN) $(ARGS)

# Every test, then a tiny run of the benchmark harness with the debug build, so that it cannot rot.
test: deps bench-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	python3 bench/bench.py --smoke --binary $(BIN)

# The same tests under ThreadSanitizer (the download thread, notifications and the UI loop) and AddressSanitizer.
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

# Leak checking is off for the test runner (XCTest keeps every test case alive until exit) but on
# in the sanitized newsstand binary the end-to-end tests start, whose exit status they check.
test-asan: deps
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan

clean:
	rm -rf .build .build-tsan .build-asan

# Benchmarks against curl, wget and Python on this machine (a few minutes); `make bench-smoke` checks the harness.
.PHONY: bench bench-smoke bench-deps
BENCH_PACKAGES := nginx-light wget tmux time
bench-deps: deps
	@missing=""; \
	for package in $(BENCH_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; fi

bench: bench-deps
	$(SWIFT) build -c release
	python3 bench/bench.py

bench-smoke: bench-deps
	$(SWIFT) build
	python3 bench/bench.py --smoke --binary $(BIN)

# libFuzzer on the catalog decoder (see Fuzz/README.md).
FUZZ_SECONDS ?= 600
.PHONY: fuzz
fuzz: deps
	NEWSSTAND_FUZZ=1 $(SWIFT) build -c release --product CatalogFuzzer --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address
	rm -rf .build-fuzz/corpus && mkdir -p .build-fuzz/corpus && cp Fuzz/corpus/* .build-fuzz/corpus/
	cd .build-fuzz && ASAN_OPTIONS=detect_leaks=0 ./release/CatalogFuzzer corpus -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=4096
