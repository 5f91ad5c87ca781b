//===- PipelinedLocation.cpp - Where a pipelined op stands in input order -===//

#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::vyre;

static constexpr llvm::StringLiteral kTag = "vyre.pipelined";

Location vyre::getPipelinedLocation(Location original, Location loop,
                                    unsigned position) {
  MLIRContext *context = original->getContext();
  Builder builder(context);
  // The loop's location lives in the metadata: FusedLoc::get drops unknown
  // and duplicate locations from its list.
  Attribute metadata = builder.getArrayAttr(
      {builder.getStringAttr(kTag), builder.getI64IntegerAttr(position),
       LocationAttr(loop)});
  return FusedLoc::get({original}, metadata, context);
}

std::optional<PipelinedPosition> vyre::getPipelinedPosition(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return std::nullopt;
  auto metadata = dyn_cast_or_null<ArrayAttr>(fused.getMetadata());
  if (!metadata || metadata.size() != 3)
    return std::nullopt;
  auto tag = dyn_cast<StringAttr>(metadata[0]);
  auto position = dyn_cast<IntegerAttr>(metadata[1]);
  auto loop = dyn_cast<LocationAttr>(metadata[2]);
  if (!tag || tag.getValue() != kTag || !position || !loop)
    return std::nullopt;
  return PipelinedPosition{Location(loop),
                           static_cast<unsigned>(position.getInt())};
}

/// The first `file:line:col` in `loc`, in its own locations only (not a
/// fused location's metadata, which for a pipelined op names its loop).
static FileLineColLoc findSourcePosition(Location loc) {
  if (auto position = dyn_cast<FileLineColLoc>(loc))
    return position;
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      if (FileLineColLoc position = findSourcePosition(part))
        return position;
    return {};
  }
  if (auto named = dyn_cast<NameLoc>(loc))
    return findSourcePosition(named.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return findSourcePosition(call.getCallee());
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return findSourcePosition(opaque.getFallbackLocation());
  return {};
}

Location vyre::getSourceLocation(Location loc) {
  if (FileLineColLoc position = findSourcePosition(loc))
    return position;
  return loc;
}
