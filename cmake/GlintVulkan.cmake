# The Vulkan backend (src/glint/backend/vulkan/): on where the Vulkan headers, a GLSL to
# SPIR-V compiler (glslc), the SPIR-V validator (spirv-val) and SPIRV-Cross's C API (shader
# reflection) are found (Debian: libvulkan-dev glslc spirv-tools libspirv-cross-c-shared-dev,
# scripts/install-deps.sh). The loader itself is opened at run time, so a Vulkan build runs
# on machines without any Vulkan driver.
find_program(GLINT_GLSLC glslc)
find_program(GLINT_SPIRV_VAL spirv-val)
find_path(GLINT_VULKAN_INCLUDE_DIR vulkan/vulkan.h)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(SPIRV_CROSS_C QUIET IMPORTED_TARGET spirv-cross-c-shared)
endif()
set(glint_vulkan_default OFF)
if(GLINT_GLSLC AND GLINT_SPIRV_VAL AND GLINT_VULKAN_INCLUDE_DIR AND SPIRV_CROSS_C_FOUND AND NOT GLINT_FUZZ)
  set(glint_vulkan_default ON)
endif()
option(GLINT_VULKAN "Build the Vulkan backend (needs Vulkan headers, glslc, spirv-val, SPIRV-Cross)" ${glint_vulkan_default})
if(GLINT_VULKAN AND NOT (GLINT_GLSLC AND GLINT_SPIRV_VAL AND GLINT_VULKAN_INCLUDE_DIR AND SPIRV_CROSS_C_FOUND))
  message(FATAL_ERROR "GLINT_VULKAN is on but glslc, spirv-val, the Vulkan headers or spirv-cross-c-shared "
                      "is missing (scripts/install-deps.sh installs them)")
endif()

# glint_vulkan_shaders(TARGET DIR OUT_CPP): every DIR/*.comp compiled to SPIR-V 1.3
# (Vulkan 1.1, what MoltenVK and every current driver take), validated by spirv-val, and
# embedded into OUT_CPP (cmake/EmbedSpirv.cmake). A shader that fails either fails the build.
# Contraction per shader family (the GPU backends' floating-point rules, docs/ARCHITECTURE.md):
# GLSL has no per-file switch, so an "exact" shader marks every float result `precise`
# (SPIR-V NoContraction) and a "contracted" one leaves fusing to the driver except where it
# says `precise` or `fma`; "integer" shaders do no float arithmetic. A shader in no list stops
# the configure.
set(GLINT_VULKAN_CONTRACTED_SHADERS project tile_keys blend blend_backward splat_backward ssim_forward
    ssim_backward loss_l1 block_sum math_check nc_pixel)
set(GLINT_VULKAN_EXACT_SHADERS adam train_target splat_step mask_weights apply_weights mcmc_noise
    nc_gather)
set(GLINT_VULKAN_INTEGER_SHADERS scan_blocks scan_add radix_count radix_scatter tile_ranges non_finite)

function(glint_vulkan_shaders dir out_cpp)
  file(GLOB comps CONFIGURE_DEPENDS ${dir}/*.comp)
  foreach(comp ${comps})
    get_filename_component(name ${comp} NAME_WE)
    if(NOT name IN_LIST GLINT_VULKAN_CONTRACTED_SHADERS AND NOT name IN_LIST GLINT_VULKAN_EXACT_SHADERS
       AND NOT name IN_LIST GLINT_VULKAN_INTEGER_SHADERS)
      message(FATAL_ERROR "Vulkan shader ${name}.comp is in no contraction family (cmake/GlintVulkan.cmake)")
    endif()
  endforeach()
  file(GLOB includes CONFIGURE_DEPENDS ${dir}/*.glsl ${dir}/*.h)
  set(spvs "")
  set(names "")
  foreach(comp ${comps})
    get_filename_component(name ${comp} NAME_WE)
    set(spv ${CMAKE_CURRENT_BINARY_DIR}/spirv/${name}.spv)
    add_custom_command(OUTPUT ${spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/spirv
      COMMAND ${GLINT_GLSLC} --target-env=vulkan1.1 -Werror -I ${dir} -o ${spv} ${comp}
      COMMAND ${GLINT_SPIRV_VAL} --target-env vulkan1.1 ${spv}
      DEPENDS ${comp} ${includes}
      COMMENT "Compiling and validating shader ${name}.comp" VERBATIM)
    list(APPEND spvs ${spv})
    list(APPEND names ${name})
  endforeach()
  string(REPLACE ";" "," name_list "${names}")
  add_custom_command(OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DDIR=${CMAKE_CURRENT_BINARY_DIR}/spirv -DNAMES=${name_list}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
    DEPENDS ${spvs} ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake ${PROJECT_SOURCE_DIR}/cmake/WriteIfChanged.cmake
    COMMENT "Embedding ${name_list}" VERBATIM)
endfunction()
