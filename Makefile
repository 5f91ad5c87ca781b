# vyre: one-command entry points. Each target installs missing dependencies,
# configures and builds as needed.
#   make check   build and run every test (lit + unit tests, through ctest)
#   make demo    run vyre-opt on examples/ and print the result
#   make docs    generate the dialect and pass docs into $(BUILD_DIR)/docs
#   make bench   run the benchmarks under bench/ and print their figures

BUILD_DIR ?= build
BUILD_TYPE ?= Release
MLIR_DIR ?= /usr/lib/llvm-22/lib/cmake/mlir
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build check demo docs bench clean

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

docs: configure
	cmake --build $(BUILD_DIR) --target mlir-doc
	@echo "docs: generated into $(BUILD_DIR)/docs"

clean:
	rm -rf $(BUILD_DIR)
