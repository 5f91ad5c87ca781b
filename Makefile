# vyre: one-command entry points. Each target installs missing dependencies,
# configures and builds as needed.
#   make check   build and run every test (lit + unit tests, through ctest)
#   make demo    run vyre-opt on examples/ and print the result
#   make docs    generate the dialect and pass docs into $(BUILD_DIR)/docs
#   make bench   run the benchmarks under bench/ and print their figures
#   make check-sanitized   build with ASan and UBSan ($(ASAN_BUILD_DIR)), run every test
#   make check-tsan-runtime the runtime's unit tests under TSan ($(TSAN_BUILD_DIR))
#   make fuzz-smoke        a short libFuzzer run of each fuzz target (clang-22)

BUILD_DIR ?= build
BUILD_TYPE ?= Release
MLIR_DIR ?= /usr/lib/llvm-22/lib/cmake/mlir
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build check demo docs bench clean \
        check-sanitized check-sanitized-unit check-tsan-runtime fuzz-smoke

ASAN_BUILD_DIR ?= build-asan
# detect_leaks: LLVM keeps static objects alive at exit.
# allow_user_poisoning: LLVM's allocators, inlined into our instrumented code,
#   poison memory that uninstrumented libMLIR.so then uses (false reports).
# use_sigaltstack: LLVM's signal handlers already install an alternate stack
#   on vyre-opt's parser thread; ASan fails to free it at thread exit.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0:use_sigaltstack=0 \
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
TSAN_BUILD_DIR ?= build-tsan
# halt_on_error: the first report fails the test (TSan's default exit code
#   at the end would too, but later reports would pile up on the first).
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
FUZZ_SECONDS ?= 45

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(MLIR_DIR) \
	  -DMLIR_LINK_MLIR_DYLIB=ON \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DLLVM_USE_LINKER=lld \
	  $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/bin/vyre-bench-slot-access
	bench/overlap_copies/run.sh $(BUILD_DIR)
	bench/schedule/run.sh $(BUILD_DIR)
	python3 bench/real_ir/compare.py $(BUILD_DIR)

docs: configure
	cmake --build $(BUILD_DIR) --target mlir-doc
	@echo "docs: generated into $(BUILD_DIR)/docs"

$(ASAN_BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(ASAN_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMLIR_DIR=$(MLIR_DIR) \
	  -DMLIR_LINK_MLIR_DYLIB=ON \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DLLVM_USE_LINKER=lld \
	  -DLLVM_USE_SANITIZER="Address;Undefined"

# Every test under AddressSanitizer and UndefinedBehaviorSanitizer.
check-sanitized: $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS)

# The unit tests alone under the sanitizers (what CI has time for).
check-sanitized-unit: $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS) --target VyreDialectTests \
	  VyreAnalysisTests VyreTransformsTests VyrePipelinesTests VyreRuntimeTests \
	  VyreHostRuntimeTests vyre-schedule-fuzz
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ctest --output-on-failure \
	  -j $(JOBS) -E '^(lit|install-downstream)$$'

$(TSAN_BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(TSAN_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMLIR_DIR=$(MLIR_DIR) \
	  -DMLIR_LINK_MLIR_DYLIB=ON \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DLLVM_USE_LINKER=lld \
	  -DLLVM_USE_SANITIZER=Thread

# The runtime's unit tests (label `runtime`: the pools, the counters, fault
# injection, the host runtime's entry points, several of them from many
# threads) under ThreadSanitizer. Builds only those tests.
check-tsan-runtime: $(TSAN_BUILD_DIR)/build.ninja
	cmake --build $(TSAN_BUILD_DIR) -j $(JOBS) --target VyreRuntimeTests \
	  VyreHostRuntimeTests
	cd $(TSAN_BUILD_DIR) && $(TSAN_ENV) ctest --output-on-failure \
	  -j $(JOBS) -L runtime

fuzz-smoke:
	scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(TSAN_BUILD_DIR) build-fuzz
