# pooled_gzip_proto_library(NAME PROTOS file.proto... [IMPORT_DIR dir]
#                           [MESSAGES_ONLY])
#
# A static library of the C++ that protoc generates for PROTOS, with the
# gRPC C++ plugin's service code unless MESSAGES_ONLY is given:
# messages-only libraries need no gRPC, so that code using just the
# messages does not link it. PROTOS are paths under IMPORT_DIR (default:
# the calling directory), which is also where their imports are looked up;
# the generated headers keep those paths ("grpc/testing/test.pb.h").
function(pooled_gzip_proto_library name)
  cmake_parse_arguments(arg "MESSAGES_ONLY" "IMPORT_DIR" "PROTOS" ${ARGN})
  if(NOT arg_PROTOS OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pooled_gzip_proto_library(${name}): give PROTOS "
      "and nothing else (unparsed: ${arg_UNPARSED_ARGUMENTS})")
  endif()
  if(NOT arg_IMPORT_DIR)
    set(arg_IMPORT_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR})
  set(protoc_args --cpp_out=${out})
  set(tools protobuf::protoc)
  set(libs protobuf::libprotobuf)
  if(NOT arg_MESSAGES_ONLY)
    list(APPEND protoc_args --grpc_out=${out}
      --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>)
    list(APPEND tools gRPC::grpc_cpp_plugin)
    list(APPEND libs gRPC::grpc++)
  endif()
  set(generated)
  set(sources)
  foreach(proto IN LISTS arg_PROTOS)
    string(REGEX REPLACE "\\.proto$" "" stem ${proto})
    list(APPEND generated ${out}/${stem}.pb.cc ${out}/${stem}.pb.h)
    if(NOT arg_MESSAGES_ONLY)
      list(APPEND generated ${out}/${stem}.grpc.pb.cc ${out}/${stem}.grpc.pb.h)
    endif()
    list(APPEND sources ${arg_IMPORT_DIR}/${proto})
  endforeach()
  add_custom_command(
    OUTPUT ${generated}
    COMMAND protobuf::protoc ${protoc_args} -I ${arg_IMPORT_DIR} ${sources}
    DEPENDS ${sources} ${tools}
    COMMENT "Generating C++ for ${arg_PROTOS}")
  add_library(${name} STATIC ${generated})
  target_include_directories(${name} PUBLIC ${out})
  target_link_libraries(${name} PUBLIC ${libs})
endfunction()
