# Two programs of the sources given, each linked with pooled_gzip and gRPC
# in one of the two orders a user's build may list them:
# <prefix>_pooled_first and <prefix>_grpc_first. For the projects that use
# the installed package (consumer/, static_consumer/).
function(add_in_both_link_orders prefix)
  add_executable(${prefix}_pooled_first ${ARGN})
  target_link_libraries(${prefix}_pooled_first PRIVATE
    pooled_gzip::pooled_gzip gRPC::grpc++ gRPC::grpc)
  add_executable(${prefix}_grpc_first ${ARGN})
  target_link_libraries(${prefix}_grpc_first PRIVATE gRPC::grpc++ gRPC::grpc
    pooled_gzip::pooled_gzip)
endfunction()
