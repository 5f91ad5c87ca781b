//===- EnableDebugOutput.cpp - -debug-only for vyre-opt-debug ----*- C++
//-*-===//
//
// Turns on the passes' debug output (LLVM_DEBUG) in vyre-opt-debug for the
// debug types listed in VYRE_DEBUG_ONLY (comma-separated), as -debug-only
// does with an LLVM built with assertions. LLVM built without them defines
// the flag and the debug types, but not the option that sets them.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Debug.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct EnableDebugOutput {
  EnableDebugOutput() {
    const char *list = std::getenv("VYRE_DEBUG_ONLY");
    if (!list || !*list)
      return;
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(list).split(names, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef name : names)
      types.push_back(name.trim().str());
    std::vector<const char *> pointers;
    for (const std::string &type : types)
      pointers.push_back(type.c_str());
    llvm::setCurrentDebugTypes(pointers.data(), pointers.size());
    llvm::DebugFlag = true;
  }
  std::vector<std::string> types;
};

EnableDebugOutput enableDebugOutput;

} // namespace
