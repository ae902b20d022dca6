# SPDX-License-Identifier: Apache-2.0
# The OTLP messages and gRPC services, generated at build time from the official protos
# (io.opentelemetry.proto:opentelemetry-proto on Maven Central, which ships the .proto files in
# its jar), into the static library otlp_proto that vtscope_core links.
#
# The version: 1.11.0-alpha. The Collector the tests build (builder v0.165.0, pdata v1.71.0)
# decodes KeyValue.key_strindex and AnyValue.string_value_strindex (pdata
# internal/generated_proto_keyvalue.go), which opentelemetry-proto has since 1.10.0; 1.10.0 and
# 1.11.0 define the same messages field for field (their .proto files differ in comments only),
# and 1.11.0 adds processcontext/v1development, the OTEP 4719 payload vtscope reads.
#
# The jar is downloaded once into the build tree (build/_deps), checked against its SHA-256, and
# never committed; VTSCOPE_OTLP_PROTO_JAR names a copy already on disk (an offline build, or
# ~/.m2/repository/io/opentelemetry/proto/...), checked the same way.
set(VTSCOPE_OTLP_PROTO_VERSION 1.11.0-alpha)
set(VTSCOPE_OTLP_PROTO_SHA256 a5f47de1368ca82aec597e74d0be6969763707483da6672471d703d454d65b5b)
set(VTSCOPE_OTLP_PROTO_JAR "" CACHE FILEPATH "opentelemetry-proto-${VTSCOPE_OTLP_PROTO_VERSION}.jar on disk (else downloaded)")

set(_otlp_deps ${CMAKE_BINARY_DIR}/_deps/opentelemetry-proto-${VTSCOPE_OTLP_PROTO_VERSION})
set(_otlp_jar ${_otlp_deps}/opentelemetry-proto-${VTSCOPE_OTLP_PROTO_VERSION}.jar)
if(VTSCOPE_OTLP_PROTO_JAR)
  file(SHA256 ${VTSCOPE_OTLP_PROTO_JAR} _otlp_sha)
  if(NOT _otlp_sha STREQUAL VTSCOPE_OTLP_PROTO_SHA256)
    message(FATAL_ERROR "${VTSCOPE_OTLP_PROTO_JAR}: SHA-256 ${_otlp_sha}, expected ${VTSCOPE_OTLP_PROTO_SHA256}")
  endif()
  set(_otlp_jar ${VTSCOPE_OTLP_PROTO_JAR})
elseif(NOT EXISTS ${_otlp_jar})
  set(_otlp_url "https://repo1.maven.org/maven2/io/opentelemetry/proto/opentelemetry-proto/${VTSCOPE_OTLP_PROTO_VERSION}/opentelemetry-proto-${VTSCOPE_OTLP_PROTO_VERSION}.jar")
  message(STATUS "Downloading opentelemetry-proto ${VTSCOPE_OTLP_PROTO_VERSION} from Maven Central")
  file(DOWNLOAD ${_otlp_url} ${_otlp_jar}.part EXPECTED_HASH SHA256=${VTSCOPE_OTLP_PROTO_SHA256}
       STATUS _otlp_status TLS_VERIFY ON)
  list(GET _otlp_status 0 _otlp_code)
  if(NOT _otlp_code EQUAL 0)
    file(REMOVE ${_otlp_jar}.part)
    message(FATAL_ERROR "cannot download ${_otlp_url}: ${_otlp_status} (or set VTSCOPE_OTLP_PROTO_JAR to a copy)")
  endif()
  file(RENAME ${_otlp_jar}.part ${_otlp_jar})
endif()

# Only the protos vtscope sends or reads: trace.proto and its service are left out (vtscope
# exports no spans), which keeps the generated code and its compile time small.
set(_otlp_protos
  opentelemetry/proto/common/v1/common.proto
  opentelemetry/proto/resource/v1/resource.proto
  opentelemetry/proto/logs/v1/logs.proto
  opentelemetry/proto/metrics/v1/metrics.proto
  opentelemetry/proto/profiles/v1development/profiles.proto
  opentelemetry/proto/processcontext/v1development/process_context.proto
  opentelemetry/proto/collector/logs/v1/logs_service.proto
  opentelemetry/proto/collector/metrics/v1/metrics_service.proto
  opentelemetry/proto/collector/profiles/v1development/profiles_service.proto)
set(_otlp_services
  opentelemetry/proto/collector/logs/v1/logs_service.proto
  opentelemetry/proto/collector/metrics/v1/metrics_service.proto
  opentelemetry/proto/collector/profiles/v1development/profiles_service.proto)
set(_otlp_src ${_otlp_deps}/proto)
if(NOT EXISTS ${_otlp_src}/.extracted-${VTSCOPE_OTLP_PROTO_SHA256})
  file(REMOVE_RECURSE ${_otlp_src})
  file(ARCHIVE_EXTRACT INPUT ${_otlp_jar} DESTINATION ${_otlp_src} PATTERNS ${_otlp_protos})
  file(TOUCH ${_otlp_src}/.extracted-${VTSCOPE_OTLP_PROTO_SHA256})
endif()

find_package(Protobuf REQUIRED)
# gRPC (Debian libgrpc++-dev, protobuf-compiler-grpc 1.51.1) for --otlp-protocol grpc.
pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)

set(_otlp_out ${CMAKE_BINARY_DIR}/otlp_proto)
set(_otlp_generated)
foreach(proto IN LISTS _otlp_protos)
  string(REGEX REPLACE "\\.proto$" "" base ${proto})
  set(outputs ${_otlp_out}/${base}.pb.cc ${_otlp_out}/${base}.pb.h)
  set(grpc_args)
  if(proto IN_LIST _otlp_services)
    list(APPEND outputs ${_otlp_out}/${base}.grpc.pb.cc ${_otlp_out}/${base}.grpc.pb.h)
    set(grpc_args --grpc_out=${_otlp_out} --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN})
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_otlp_out}
    COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${_otlp_out} ${grpc_args} -I ${_otlp_src} ${_otlp_src}/${proto}
    DEPENDS ${_otlp_src}/${proto}
    COMMENT "protoc: ${proto}")
  foreach(f IN LISTS outputs)
    if(f MATCHES "\\.cc$")
      list(APPEND _otlp_generated ${f})
    endif()
  endforeach()
endforeach()

add_library(otlp_proto STATIC ${_otlp_generated})
target_include_directories(otlp_proto SYSTEM PUBLIC ${_otlp_out} ${Protobuf_INCLUDE_DIRS})
target_compile_options(otlp_proto PRIVATE -w)  # generated code: not ours to warn about
target_link_libraries(otlp_proto PUBLIC ${Protobuf_LIBRARIES} PkgConfig::GRPCPP)
