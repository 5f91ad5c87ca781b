//===- KernelProfileTest.cpp - Kernel times per name, as JSON -----*- C++ -*-===//

#include "vyre/Runtime/KernelProfile.h"

#include "gtest/gtest.h"

using vyre::runtime::KernelProfile;

namespace {

TEST(KernelProfileTest, MeansPerKernelNameWhereEveryLaunchWasTimed) {
  KernelProfile profile;
  int a, b;
  profile.nameFunction(&a, "scale");
  profile.nameFunction(&b, "sum");
  profile.addLaunch(&a, 10.0, true);
  profile.addLaunch(&a, 20.0, true);
  profile.addLaunch(&b, 5.0, true);
  profile.addLaunch(&b, 0.0, false);
  EXPECT_EQ(profile.toJSON("cuda"),
            "{\"vyre_profile\": 1, \"runtime\": \"cuda\", \"kernels\": [\n"
            "  {\"name\": \"scale\", \"launches\": 2, \"mean_us\": 15.000},\n"
            "  {\"name\": \"sum\", \"launches\": 2}\n"
            "]}\n");
}

TEST(KernelProfileTest, ResetForgetsLaunchesNotNames) {
  KernelProfile profile;
  int a;
  profile.nameFunction(&a, "k\"1");
  profile.addLaunch(&a, 1.0, true);
  profile.reset();
  EXPECT_EQ(profile.toJSON("host"),
            "{\"vyre_profile\": 1, \"runtime\": \"host\", \"kernels\": [\n]}\n");
  profile.addLaunch(&a, 3.0, true);
  EXPECT_NE(profile.toJSON("host").find("\"name\": \"k\\\"1\""),
            std::string::npos);
}

} // namespace
