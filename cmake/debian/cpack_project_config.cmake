# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE, set in
# cmake/packaging.cmake). The Debian packages install into /usr with the
# multiarch libdir; a build configured for another prefix has a libdir that
# would not match, so refuse rather than build a wrong package.
if(CPACK_GENERATOR STREQUAL "DEB" AND
   NOT CPACK_POOLED_GZIP_LIBDIR STREQUAL CPACK_POOLED_GZIP_MULTIARCH_LIBDIR)
  message(FATAL_ERROR "Debian packages need the build configured with "
    "-DCMAKE_INSTALL_PREFIX=/usr (libdir ${CPACK_POOLED_GZIP_MULTIARCH_LIBDIR}); "
    "this one has prefix ${CPACK_POOLED_GZIP_INSTALL_PREFIX} and libdir "
    "${CPACK_POOLED_GZIP_LIBDIR}. Use scripts/build_packages.sh.")
endif()
