//===- KernelProfile.cpp - Kernel times per kernel, for a profile file -*- C++ -*-===//

#include "vyre/Runtime/KernelProfile.h"

#include <cstdio>

using namespace vyre::runtime;

void KernelProfile::nameFunction(const void *function, const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  names[function] = name ? name : "";
}

void KernelProfile::addLaunch(const void *function, double micros,
                              bool measured) {
  std::lock_guard<std::mutex> lock(mutex);
  auto named = names.find(function);
  Entry &entry =
      entries[named == names.end() ? std::string("?") : named->second];
  ++entry.launches;
  entry.micros += micros;
  entry.measured &= measured;
}

void KernelProfile::reset() {
  std::lock_guard<std::mutex> lock(mutex);
  entries.clear();
}

/// `text` as a JSON string.
static std::string quote(const std::string &text) {
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      result += escaped;
    } else {
      result += c;
    }
  }
  return result + "\"";
}

std::string KernelProfile::toJSON(const char *runtime) const {
  std::lock_guard<std::mutex> lock(mutex);
  std::string json = "{\"vyre_profile\": 1, \"runtime\": " + quote(runtime) +
                     ", \"kernels\": [";
  bool first = true;
  for (const auto &[name, entry] : entries) {
    json += first ? "\n  " : ",\n  ";
    first = false;
    json += "{\"name\": " + quote(name) +
            ", \"launches\": " + std::to_string(entry.launches);
    if (entry.measured && entry.launches > 0) {
      char mean[64];
      std::snprintf(mean, sizeof(mean), "%.3f",
                    entry.micros / double(entry.launches));
      json += std::string(", \"mean_us\": ") + mean;
    }
    json += "}";
  }
  return json + "\n]}\n";
}

KernelProfile &vyre::runtime::kernelProfile() {
  static KernelProfile instance;
  return instance;
}

bool vyre::runtime::writeKernelProfile(const KernelProfile &profile,
                                       const char *runtime, const char *path) {
  std::FILE *file = std::fopen(path, "w");
  if (!file)
    return false;
  std::string json = profile.toJSON(runtime);
  bool written = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  return std::fclose(file) == 0 && written;
}
