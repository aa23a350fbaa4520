// Typed dispatch on both CPU drivers: every shader's pipeline is made and its declared C++
// interface checked against the SPIR-V's reflection; an embedded shader that is not declared
// is an error; and a dispatch whose argument list does not match its shader is refused
// before anything is recorded or submitted (a wrong element type, a read-only buffer passed
// as written, a missing binding, a push-constant struct of another layout). A list that
// does not match the declaration does not compile at all (tests/compile_checks/
// vulkan_dispatch.cpp, checked when configuring).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/dispatch.h"
#include "glint/backend/vulkan/shader_blobs.h"
#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/core/error.h"
#include "vulkan_test_support.h"

using namespace glint;
using namespace glint::vk;

namespace {

class VulkanDispatch : public test::VulkanStreamTest {};

// The project shader declared wrongly in four ways.
struct ProjectWrongElement {  // radii as uint where the shader has int
  static constexpr const char* kName = "project";
  using Push = ProjectPush;
  using Args = std::tuple<In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, Out<ProjectedSplat>,
                          Out<std::uint32_t>, Out<std::uint32_t>>;
};
struct ProjectWrongAccess {  // the means passed as written
  static constexpr const char* kName = "project";
  using Push = ProjectPush;
  using Args = std::tuple<Out<float>, In<float>, In<float>, In<float>, In<float>, In<float>, Out<ProjectedSplat>,
                          Out<std::uint32_t>, Out<std::int32_t>>;
};
struct ProjectMissingBinding {  // no radii
  static constexpr const char* kName = "project";
  using Push = ProjectPush;
  using Args = std::tuple<In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, Out<ProjectedSplat>,
                          Out<std::uint32_t>>;
};
struct ProjectWrongPush {  // another shader's push constants
  static constexpr const char* kName = "project";
  using Push = TileKeysPush;
  using Args = shaders::Project::Args;
};

template <class S>
std::string refusal(Stream& s) {
  try {
    program<S>(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_P(VulkanDispatch, EveryShaderMatchesItsDeclaredInterface) {
  std::set<std::string> declared;
  std::apply(
      [&](auto... shader) {
        ((declared.insert(decltype(shader)::kName), (void)program<decltype(shader)>(*stream)), ...);
      },
      shaders::All{});
  for (const EmbeddedShader& e : embedded_shaders()) EXPECT_TRUE(declared.count(e.name)) << e.name << " has no C++ interface";
  EXPECT_EQ(declared.size(), embedded_shaders().size());
}

TEST_P(VulkanDispatch, AMismatchedArgumentListIsRefusedBeforeAnyWork) {
  // each wrong declaration is refused when its pipeline is made, naming what differs
  EXPECT_NE(refusal<ProjectWrongElement>(*stream).find("binding 8 (Radii) holds int in the shader, uint"), std::string::npos)
      << refusal<ProjectWrongElement>(*stream);
  EXPECT_NE(refusal<ProjectWrongAccess>(*stream).find("binding 0 (Means) is readonly in the shader"), std::string::npos)
      << refusal<ProjectWrongAccess>(*stream);
  EXPECT_NE(refusal<ProjectMissingBinding>(*stream).find("declares 9 storage buffers, the C++ call passes 8"),
            std::string::npos)
      << refusal<ProjectMissingBinding>(*stream);
  EXPECT_NE(refusal<ProjectWrongPush>(*stream).find("push constants"), std::string::npos)
      << refusal<ProjectWrongPush>(*stream);
  // and a dispatch through such a declaration throws before recording anything: the stream
  // has nothing to submit afterwards, so nothing ran
  Array<float> f;
  Array<ProjectedSplat> sp;
  Array<std::uint32_t> u;
  f.resize(*device, 64);
  sp.resize(*device, 64);
  u.resize(*device, 64);
  EXPECT_THROW(dispatch<ProjectWrongElement>(*stream, Groups{}, ProjectPush{}, in(f), in(f), in(f), in(f), in(f), in(f),
                                             out(sp), out(u), out(u)),
               Error);
  stream->finish();  // nothing recorded: no submission, no validation message
}

GLINT_VULKAN_DRIVERS(VulkanDispatch);
