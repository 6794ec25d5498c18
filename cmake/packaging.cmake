# Debian packages through CPack (cpack -G DEB; scripts/build_packages.sh
# wraps it and runs lintian):
#
#   libpooled-gzip1     the shared library, libpooled_gzip.so.1 and
#                       .so.1.0.0 in /usr/lib/<multiarch>; install component
#                       "runtime"
#   libpooled-gzip-dev  headers, the libpooled_gzip.so link, the CMake package
#                       and the pkg-config file; install component "dev"
#
# Configure the packaging build with -DCMAKE_INSTALL_PREFIX=/usr, so that
# GNUInstallDirs picks the multiarch libdir (lib/x86_64-linux-gnu) that the
# packages install to. A plain `cmake --install` is unchanged: the Debian
# documentation files below are EXCLUDE_FROM_ALL and only go into the
# packages.

set(POOLED_GZIP_DEB_RELEASE 1 CACHE STRING
  "Debian revision of the packages (the -N after the upstream version)")
set(POOLED_GZIP_DEB_MAINTAINER
  "pooled-gzip maintainers <pooled-gzip@example.invalid>" CACHE STRING
  "Maintainer field (and changelog signature) of the Debian packages")

set(POOLED_GZIP_RUNTIME_PACKAGE libpooled-gzip${PROJECT_VERSION_MAJOR})
set(POOLED_GZIP_DEV_PACKAGE libpooled-gzip-dev)
set(POOLED_GZIP_DEB_VERSION ${PROJECT_VERSION}-${POOLED_GZIP_DEB_RELEASE})
set(deb_dir ${CMAKE_CURRENT_LIST_DIR}/debian)
set(deb_build_dir ${PROJECT_BINARY_DIR}/debian)

# /usr/share/doc/<package>/{copyright,changelog.Debian.gz} and the lintian
# overrides, per package. gzip -9n: no name or timestamp in the header.
configure_file(${deb_dir}/changelog.in ${deb_build_dir}/changelog.Debian @ONLY)
execute_process(
  COMMAND gzip -9nc ${deb_build_dir}/changelog.Debian
  OUTPUT_FILE ${deb_build_dir}/changelog.Debian.gz
  RESULT_VARIABLE gzip_result)
if(NOT gzip_result EQUAL 0)
  message(FATAL_ERROR "gzip of the Debian changelog failed: ${gzip_result}")
endif()
foreach(component runtime dev)
  string(TOUPPER ${component} upper)
  set(package ${POOLED_GZIP_${upper}_PACKAGE})
  install(FILES ${deb_dir}/copyright ${deb_build_dir}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
    COMPONENT ${component} EXCLUDE_FROM_ALL)
  if(EXISTS ${deb_dir}/${package}.lintian-overrides)
    install(FILES ${deb_dir}/${package}.lintian-overrides
      DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides
      RENAME ${package}
      COMPONENT ${component} EXCLUDE_FROM_ALL)
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pooled-gzip)
set(CPACK_PACKAGE_VENDOR "pooled-gzip authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${POOLED_GZIP_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# Checked when cpack runs: a DEB needs the /usr multiarch libdir.
set(CPACK_PROJECT_CONFIG_FILE ${deb_dir}/cpack_project_config.cmake)
set(CPACK_POOLED_GZIP_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_POOLED_GZIP_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
set(CPACK_POOLED_GZIP_MULTIARCH_LIBDIR "lib/${CMAKE_LIBRARY_ARCHITECTURE}")

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
# dev depends on "libpooled-gzip1 (= <exact version>)".
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${POOLED_GZIP_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${POOLED_GZIP_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SOURCE pooled-gzip)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${POOLED_GZIP_RUNTIME_PACKAGE})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# Depends from dpkg-shlibdeps (libgrpc++1.51, libabsl, zlib1g, libc6, ...).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# DEBIAN/shlibs: "libpooled_gzip 1 libpooled-gzip1 (= <version>)". The
# default "=" policy: the SONAME is the major version. (No per-component
# variable exists for this one; the dev package has no shared object.)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# DEBIAN/triggers: "activate-noawait ldconfig". CPack 3.25 also writes a
# postinst and postrm that run ldconfig for any library under /usr/lib, and
# has no switch to leave them out: see the lintian override.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${deb_dir}/triggers)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
"pooled gzip and deflate message compression for gRPC C++
pooled-gzip serves gRPC core's own per-message gzip and deflate codec from
recycled compressor and decompressor contexts kept in a bounded thread-local
pool, with faster deflate backends to choose from and a cap that stops
decompression bombs. The wire format stays standard gzip or deflate.

This package contains the shared library, built for gRPC C++ 1.51.")
if(POOLED_GZIP_HAS_PROMETHEUS)
  string(APPEND CPACK_DEBIAN_RUNTIME_DESCRIPTION "

It also contains libpooled_gzip_prometheus, which exports the plugin's
figures as Prometheus metrics.")
endif()

set(CPACK_DEBIAN_DEV_PACKAGE_NAME ${POOLED_GZIP_DEV_PACKAGE})
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What a consumer of the dev package needs to build: the CMake package
# (cmake/pooled_gzipConfig.cmake.in) finds ZLIB, Protobuf, absl and gRPC;
# the pkg-config file requires the modules listed in its Requires and
# Requires.private lines (pkg-config --cflags fails without the latter too).
set(dev_depends libgrpc++-dev libprotobuf-dev libabsl-dev zlib1g-dev)
set(pc_files ${PROJECT_SOURCE_DIR}/cmake/pooled_gzip.pc.in)
# pooled_gzip::prometheus (plugin/prometheus), when this build has it, goes
# into the same two packages: it shares the core's export set and install
# components. scripts/build_packages.sh leaves it out unless asked
# (--with-prometheus); with it, the CMake package finds prometheus-cpp.
if(POOLED_GZIP_HAS_PROMETHEUS)
  list(APPEND dev_depends prometheus-cpp-dev)
  list(APPEND pc_files ${PROJECT_SOURCE_DIR}/cmake/pooled_gzip_prometheus.pc.in)
endif()
set(pc_requires)
foreach(pc_file IN LISTS pc_files)
  file(STRINGS ${pc_file} requires REGEX "^Requires(\\.private)?:")
  list(APPEND pc_requires ${requires})
endforeach()
string(REGEX REPLACE "Requires(\\.private)?:" "" pc_requires "${pc_requires}")
string(REGEX REPLACE "[ ,;]+" ";" pc_requires "${pc_requires}")
foreach(module IN LISTS pc_requires)
  if(module STREQUAL "grpc++" OR module STREQUAL "grpc")
    set(package libgrpc++-dev)
  elseif(module STREQUAL "protobuf")
    set(package libprotobuf-dev)
  elseif(module STREQUAL "zlib")
    set(package zlib1g-dev)
  elseif(module MATCHES "^(libdeflate|libisal)$")
    set(package ${module}-dev)
  elseif(module MATCHES "^prometheus-cpp-")
    set(package prometheus-cpp-dev)
  elseif(module STREQUAL "" OR module STREQUAL "pooled_gzip")
    continue()
  else()
    message(FATAL_ERROR "cmake/packaging.cmake: no Debian package known for "
      "pkg-config module '${module}' (Requires in cmake/*.pc.in); add it")
  endif()
  list(APPEND dev_depends ${package})
endforeach()
list(REMOVE_DUPLICATES dev_depends)
list(JOIN dev_depends ", " CPACK_DEBIAN_DEV_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_DEV_DESCRIPTION
"pooled gzip and deflate message compression for gRPC C++ (development)
pooled-gzip serves gRPC core's own per-message gzip and deflate codec from
recycled compressor and decompressor contexts kept in a bounded thread-local
pool, with faster deflate backends to choose from and a cap that stops
decompression bombs. The wire format stays standard gzip or deflate.

This package contains the headers, the CMake package (find_package
pooled_gzip, target pooled_gzip::pooled_gzip) and the pkg-config file
(pooled_gzip).")
if(POOLED_GZIP_HAS_PROMETHEUS)
  string(APPEND CPACK_DEBIAN_DEV_DESCRIPTION "

It also contains those of pooled_gzip::prometheus (pkg-config file
pooled_gzip_prometheus).")
endif()

include(CPack)
