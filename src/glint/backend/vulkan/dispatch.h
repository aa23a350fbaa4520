#pragma once
// Typed dispatch: dispatch<Shader>(stream, groups, push, args...) is one C++ call whose
// arguments must be exactly the shader's declared interface (Shader::Push and Shader::Args,
// shader_interfaces.h): an In<T> where the shader reads an array of T, an Out<T> where it
// writes one, in binding order, with no conversions; anything else does not compile. The
// declared interface itself is checked against the SPIR-V's reflection when the pipeline is
// made (program.h), so a shader and its C++ call cannot disagree on a binding's number,
// element type, element size, read-only-ness or the push constants' layout.
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "glint/backend/vulkan/buffer.h"
#include "glint/backend/vulkan/shader_types.h"
#include "glint/backend/vulkan/stream.h"
#include "glint/core/error.h"

namespace glint::vk {

// A range of an Array<T> the shader reads (In) or writes (Out).
template <class T>
struct In {
  Binding binding;
};
template <class T>
struct Out {
  Binding binding;
};

namespace detail {
template <class T>
Binding range(const Array<T>& a, std::size_t first, std::size_t count) {
  if (first > a.size() || count > a.size() - first)
    throw Error("Vulkan", "a binding past the end of its array (" + std::to_string(first) + " + " +
                              std::to_string(count) + " of " + std::to_string(a.size()) + ")");
  return {a.buffer().handle(), first * sizeof(T), count * sizeof(T)};
}
}  // namespace detail

template <class T>
In<T> in(const Array<T>& a) {
  return {detail::range(a, 0, a.size())};
}
template <class T>
In<T> in(const Array<T>& a, std::size_t first, std::size_t count) {
  return {detail::range(a, first, count)};
}
template <class T>
Out<T> out(Array<T>& a) {
  return {detail::range(a, 0, a.size())};
}
template <class T>
Out<T> out(Array<T>& a, std::size_t first, std::size_t count) {
  return {detail::range(a, first, count)};
}

// How a C++ element type appears in the shader.
template <class T>
struct Element {
  static BindingSpec spec() {
    BindingSpec s;
    s.kind = ElementKind::structure;
    s.element_size = sizeof(T);
    s.layout = Layout<T>::get();
    return s;
  }
};
template <>
struct Element<float> {
  static BindingSpec spec() { return {false, ElementKind::f32, 4, {}}; }
};
template <>
struct Element<std::uint32_t> {
  static BindingSpec spec() { return {false, ElementKind::u32, 4, {}}; }
};
template <>
struct Element<std::int32_t> {
  static BindingSpec spec() { return {false, ElementKind::i32, 4, {}}; }
};

template <class A>
struct ArgSpec;
template <class T>
struct ArgSpec<In<T>> {
  static BindingSpec spec() { return Element<T>::spec(); }
};
template <class T>
struct ArgSpec<Out<T>> {
  static BindingSpec spec() {
    BindingSpec s = Element<T>::spec();
    s.writable = true;
    return s;
  }
};

template <class Shader>
ProgramSpec program_spec() {
  ProgramSpec p;
  p.shader = Shader::kName;
  p.push = Layout<typename Shader::Push>::get();
  std::apply([&](auto... a) { (p.bindings.push_back(ArgSpec<decltype(a)>::spec()), ...); }, typename Shader::Args{});
  return p;
}

// The shader's pipeline on the stream's device, made and checked on first use.
template <class Shader>
const Program& program(Stream& s) {
  static const ProgramSpec spec = program_spec<Shader>();
  return s.programs().get(spec);
}

template <class Shader, class... A>
void dispatch(Stream& s, Groups groups, const typename Shader::Push& push, A&&... args) {
  static_assert(std::is_same_v<std::tuple<std::remove_cvref_t<A>...>, typename Shader::Args>,
                "dispatch: the arguments differ from the shader's interface (In/Out, element type, order or count)");
  const Program& p = program<Shader>(s);
  const Binding b[] = {args.binding...};
  s.dispatch(p, groups, &push, sizeof(push), b, sizeof...(A));
}

}  // namespace glint::vk
