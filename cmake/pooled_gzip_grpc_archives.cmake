# pooled_gzip_use_grpc_archives([UNSECURE])
#
# Points every gRPC::* imported library target of the calling directory that
# names a shared library at the archive beside it (libgrpc.so.29 ->
# libgrpc.a, in whatever library folder gRPC's own config names, so on any
# architecture), add-ons such as gRPC::grpc++_reflection included. The
# static flavour of pooled_gzip calls it when it is found: one gRPC target
# left on its shared library would load a second gRPC core beside the
# static one, which the library then refuses to serve (and gRPC may hang).
# Targets that already name archives (vcpkg's, Conan's) are left as they
# are; a target with no archive beside its shared library stops the
# configure with the path it looked for.
#
# UNSECURE: gRPC's _unsecure archives instead of the secure ones (no
# OpenSSL needed), for an OpenSSL without the ENGINE API.
#
# Set POOLED_GZIP_KEEP_GRPC_TARGETS to ON before find_package(pooled_gzip)
# to leave gRPC's targets alone.
function(pooled_gzip_use_grpc_archives)
  cmake_parse_arguments(PARSE_ARGV 0 arg "UNSECURE" "" "")
  get_property(imported DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^gRPC::")
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(SHARED|STATIC|UNKNOWN)_LIBRARY$")
      continue()  # the code generator plugins, interface targets
    endif()
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    foreach(config IN LISTS configs)
      get_target_property(location ${target} IMPORTED_LOCATION_${config})
      if(NOT location)
        continue()
      endif()
      string(REGEX REPLACE "\\.so[.0-9]*$" ".a" archive "${location}")
      if(arg_UNSECURE)
        string(REGEX REPLACE "/lib(grpc|grpc\\+\\+)\\.a$"
          "/lib\\1_unsecure.a" archive "${archive}")
      endif()
      if(archive STREQUAL location)
        continue()
      endif()
      if(NOT EXISTS "${archive}")
        message(FATAL_ERROR "pooled_gzip (static): ${target} names "
          "${location}, and there is no archive ${archive} beside it. Install "
          "gRPC's static libraries (Debian and Ubuntu: libgrpc++-dev and "
          "libgrpc-dev ship them), or set POOLED_GZIP_KEEP_GRPC_TARGETS=ON "
          "and link gRPC statically yourself.")
      endif()
      set_target_properties(${target} PROPERTIES
        IMPORTED_LOCATION_${config} "${archive}"
        IMPORTED_LOCATION "${archive}")
      set_property(TARGET ${target} PROPERTY IMPORTED_SONAME_${config})
    endforeach()
  endforeach()
endfunction()
