// RUN: not vyre-opt %s --vyre-apply-profile 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: --vyre-apply-profile: give the profile file (file=PATH)
// RUN: not vyre-opt %s --vyre-apply-profile=file=%S/Inputs/does-not-exist.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: --vyre-apply-profile: profile file '{{.+}}does-not-exist.json': cannot be read:
// RUN: not vyre-opt %s --vyre-apply-profile=file=%S/Inputs/profile-truncated.json 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: --vyre-apply-profile: profile file '{{.+}}profile-truncated.json': is not JSON:
// RUN: not vyre-opt %s --vyre-apply-profile=file=%S/Inputs/profile-version-2.json 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: error: --vyre-apply-profile: profile file '{{.+}}profile-version-2.json': is not a version 1 vyre profile
// RUN: not vyre-opt %s --vyre-apply-profile=file=%S/Inputs/profile-negative.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: --vyre-apply-profile: profile file '{{.+}}profile-negative.json': kernel 'scale' has a "mean_us" that is not a finite non-negative number

// Bad profile files are errors that name the file, with no module dump.
module {
}
