# SPDX-License-Identifier: Apache-2.0
# The exports of libvtscope.so and the declarations of include/vtscope_native.h are the same set
# (plus JNI_OnLoad, Agent_OnLoad and Agent_OnAttach, which jni.h and jvmti.h declare, and
# MountHook's natives, named by JNI's rules): a tracer finds symbols by
# name (consumer/src/core/probe_modules.cpp, thread_context_tls.cpp), so an export missing from the
# header is an undocumented ABI, and a declaration without an export a broken one.
# Run as: cmake -DNM=nm -DLIBRARY=libvtscope.so -DHEADER=vtscope_native.h -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE nm_output RESULT_VARIABLE nm_result)
if(NOT nm_result EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed (${nm_result})")
endif()
string(REGEX MATCHALL "[^\n]+" nm_lines "${nm_output}")
set(exported "")
foreach(line IN LISTS nm_lines)
  if(line MATCHES "^[0-9a-f]* +[A-Za-z] +([A-Za-z_][A-Za-z0-9_]*)$")
    list(APPEND exported ${CMAKE_MATCH_1})
  endif()
endforeach()
list(REMOVE_ITEM exported JNI_OnLoad Agent_OnLoad Agent_OnAttach)
# MountHook's natives, by JNI's naming (src/mount_hook.cpp): the JVM's ABI, not vtscope_native.h's.
list(FILTER exported EXCLUDE REGEX "^Java_io_vtscope_otep_MountHook_(linked|mounted|unmounted|terminated)$")

# Declarations: file-scope lines (no indentation, not a comment, macro, struct or assertion)
# that declare a function "name(" or a variable "name;".
file(STRINGS ${HEADER} header_lines)
set(declared "")
foreach(line IN LISTS header_lines)
  if(line MATCHES "^[A-Za-z]" AND NOT line MATCHES "^(struct|static_assert|typedef|extern \"C\")" AND
     line MATCHES "([A-Za-z_][A-Za-z0-9_]*)(\\(|;)")
    list(APPEND declared ${CMAKE_MATCH_1})
  endif()
endforeach()

list(LENGTH exported exported_count)
list(LENGTH declared declared_count)
if(exported_count LESS 5 OR declared_count LESS 5)
  message(FATAL_ERROR "found only ${exported_count} exports and ${declared_count} declarations: the check is broken")
endif()
set(undeclared ${exported})
list(REMOVE_ITEM undeclared ${declared})
set(unexported ${declared})
list(REMOVE_ITEM unexported ${exported})
if(undeclared OR unexported)
  message(FATAL_ERROR "exported but not declared in ${HEADER}: [${undeclared}]; declared but not exported: [${unexported}]")
endif()
list(SORT exported)
message(STATUS "${exported_count} exports, each declared: ${exported}")
