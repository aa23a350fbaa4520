# `cmake --install` and `cpack`: the glint program (its viewer page is compiled into it)
# and the bundled demo scene, which `glint demo` finds beside the program
# (<prefix>/share/glint/demo). cpack makes a .deb whose dependencies dpkg-shlibdeps reads
# off the binary (OpenMP, OpenEXR, cpp-httplib, stb, ...); COLMAP and ffmpeg, which only
# `glint sfm` and `glint train` on photos or a video run, are recommended, and so is the
# Vulkan loader where the Vulkan backend is built (it is opened at run time, so
# dpkg-shlibdeps cannot see it).
include(GNUInstallDirs)
install(TARGETS glint RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/demo/ DESTINATION ${CMAKE_INSTALL_DATADIR}/glint/demo)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME glint)
set(CPACK_PACKAGE_VENDOR "Glint")
set(CPACK_PACKAGE_CONTACT "Glint developers <glint@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Train, render and relight 3D Gaussian splats from photos or a video")
set(CPACK_PACKAGE_INSTALL_DIRECTORY glint)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "colmap, ffmpeg")
if(GLINT_VULKAN)
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", libvulkan1")
endif()
include(CPack)
