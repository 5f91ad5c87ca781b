# -*- Python -*-
"""lit configuration for the vyre regression tests."""

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "VYRE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vyre_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unittests", "Inputs", "lib", "Install"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%vyre_src", config.vyre_source_root))
config.substitutions.append(("%vyre_obj", config.vyre_obj_root))
config.substitutions.append(("%vyre_libs", os.path.join(config.vyre_obj_root, "lib")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.vyre_tools_dir, config.llvm_tools_dir]
tools = ["vyre-opt", "vyre-opt-debug", "vyre-schedule-fuzz", "mlir-opt", "mlir-translate", "llc", "llvm-nm"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.vyre_have_cuda:
    config.available_features.add("cuda")
# A sanitized build's libraries need the sanitizer runtime: they cannot be
# loaded into the stock mlir-opt or linked into plain executables.
if config.vyre_sanitizers:
    config.available_features.add("sanitized")
# The sanitizers' own settings for every RUN line.
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
