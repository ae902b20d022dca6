# SPDX-License-Identifier: Apache-2.0
# block --perfetto: the Perfetto trace subset of consumer/proto/vtscope_perfetto.proto, compiled by
# protoc (Debian protobuf-compiler) at build time into a library of its own, with the timeline
# that fills it (src/output/perfetto_timeline.cpp). The messages are generated for the lite runtime
# (only built and serialized) but linked to the full libprotobuf, which holds the lite one: the
# OTLP protos link it, and one process should carry one copy of protobuf's runtime, not two.
find_package(Protobuf REQUIRED)
set(VTSCOPE_PERFETTO_PROTO ${CMAKE_CURRENT_SOURCE_DIR}/proto/vtscope_perfetto.proto)
set(VTSCOPE_PERFETTO_GEN ${CMAKE_CURRENT_BINARY_DIR}/perfetto_gen)
file(MAKE_DIRECTORY ${VTSCOPE_PERFETTO_GEN})
add_custom_command(
  OUTPUT ${VTSCOPE_PERFETTO_GEN}/vtscope_perfetto.pb.cc ${VTSCOPE_PERFETTO_GEN}/vtscope_perfetto.pb.h
  COMMAND protobuf::protoc --cpp_out=${VTSCOPE_PERFETTO_GEN} -I ${CMAKE_CURRENT_SOURCE_DIR}/proto
          ${VTSCOPE_PERFETTO_PROTO}
  DEPENDS ${VTSCOPE_PERFETTO_PROTO} protobuf::protoc
  COMMENT "protoc vtscope_perfetto.proto"
  VERBATIM)
add_library(vtscope_perfetto STATIC src/output/perfetto_timeline.cpp ${VTSCOPE_PERFETTO_GEN}/vtscope_perfetto.pb.cc)
target_include_directories(vtscope_perfetto PUBLIC src)
# Private: only the timeline and its test (tests/CMakeLists.txt) see the generated messages.
target_include_directories(vtscope_perfetto SYSTEM PRIVATE ${VTSCOPE_PERFETTO_GEN})
target_link_libraries(vtscope_perfetto PUBLIC protobuf::libprotobuf)
# protoc's generated code is not held to the project's warning flags.
set_source_files_properties(${VTSCOPE_PERFETTO_GEN}/vtscope_perfetto.pb.cc PROPERTIES COMPILE_OPTIONS "-w")
