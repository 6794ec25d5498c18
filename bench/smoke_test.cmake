# Benchmark smoke test, run by CTest: each benchmark runs for a moment and
# must produce the rows and figures the report needs. It checks that numbers
# exist and are sane, never how fast anything was.
#
#   cmake -DSTEP=codec|e2e|report -DBINARY=... -DOUT_DIR=... -P smoke_test.cmake
# STEP=report also takes -DPYTHON=... -DREPORT=... and, if found, -DGNUPLOT=...

cmake_minimum_required(VERSION 3.19)  # string(JSON)

function(fail)
  string(JOIN "" message ${ARGN})
  message(FATAL_ERROR "bench smoke (${STEP}): ${message}")
endfunction()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("`${ARGN}` exited with ${rc}\n${out}\n${err}")
  endif()
endfunction()

# Sets `var` to the member at the path after `json`, failing if it is
# missing.
function(json_get var json)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(error)
    fail("missing ${ARGN}: ${error}")
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

# Sets `var` to the length of the array at the path after `json`.
function(json_length var json)
  string(JSON value ERROR_VARIABLE error LENGTH "${json}" ${ARGN})
  if(error)
    fail("missing ${ARGN}: ${error}")
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")

if(STEP STREQUAL "codec")
  set(json_file "${OUT_DIR}/codec_bench.json")
  file(REMOVE "${json_file}")
  run("${BINARY}" "--benchmark_filter=/(1|1024)/" --benchmark_min_time=0.001
    "--benchmark_out=${json_file}" --benchmark_out_format=json)
  file(READ "${json_file}" json)
  json_length(count "${json}" benchmarks)
  # compress and decompress x 3 payload kinds x 2 sizes x stock and pooled
  if(NOT count EQUAL 24)
    fail("expected 24 benchmark rows, got ${count}")
  endif()
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    json_get(row "${json}" benchmarks ${i})
    json_get(name "${row}" name)
    string(JSON error_occurred ERROR_VARIABLE no_error GET "${row}"
      error_occurred)
    if(error_occurred)
      fail("${name} reported an error")
    endif()
    foreach(counter real_time bytes_per_second allocs_per_op
        heap_bytes_per_op zlib_state_allocs_per_op zlib_state_bytes_per_op
        minor_faults_per_op output_bytes)
      json_get(value "${row}" ${counter})
    endforeach()
    json_get(iterations "${row}" iterations)
    if(iterations LESS 1)
      fail("${name} ran no iterations")
    endif()
    # The interposer must see zlib's own mallocs: core's path allocates a
    # fresh deflate state (5 blocks) for every message.
    if(name MATCHES "^compress/.*/stock$")
      json_get(zlib_allocs "${row}" zlib_state_allocs_per_op)
      if(NOT zlib_allocs GREATER_EQUAL 5)
        fail("${name}: zlib state allocations not counted (${zlib_allocs})")
      endif()
    endif()
  endforeach()

elseif(STEP STREQUAL "e2e")
  set(json_file "${OUT_DIR}/e2e_bench.json")
  file(REMOVE "${json_file}")
  run("${BINARY}" --sizes=1,1024 --rpcs=unary,bidi --threads=1 --reps=1
    --budget_ms=20 --warmup_ms=5 --min_messages=2 "--out=${json_file}")
  file(READ "${json_file}" json)
  json_length(count "${json}" rows)
  # 2 sizes x 2 RPC kinds x 1 thread count x 3 modes
  if(NOT count EQUAL 12)
    fail("expected 12 rows, got ${count}")
  endif()
  math(EXPR last "${count} - 1")
  set(modes_seen "")
  foreach(i RANGE ${last})
    json_get(row "${json}" rows ${i})
    json_get(mode "${row}" mode)
    list(APPEND modes_seen ${mode})
    json_get(messages "${row}" messages)
    json_get(errors "${row}" errors)
    if(messages LESS 2 OR NOT errors EQUAL 0)
      fail("row ${i} (${mode}): ${messages} round trips, ${errors} errors")
    endif()
    foreach(key p50_us p99_us msgs_per_s cpu_us_per_msg peak_rss_bytes
        allocs_per_msg deflate_state_allocs_per_msg inflate_state_allocs_per_msg
        pool_created pool_reused)
      json_get(value "${row}" ${key})
    endforeach()
    json_get(p50 "${row}" p50_us)
    if(NOT p50 GREATER 0)
      fail("row ${i} (${mode}) has no latency")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES modes_seen)
  list(SORT modes_seen)
  if(NOT modes_seen STREQUAL "none;pooled;stock")
    fail("modes: ${modes_seen}")
  endif()
  json_get(pool_text "${json}" pool_stats text)

elseif(STEP STREQUAL "report")
  set(md "${OUT_DIR}/benchmarks.md")
  set(png "${OUT_DIR}/benchmarks.png")
  file(REMOVE "${md}" "${png}")
  run("${PYTHON}" "${REPORT}" --codec "${OUT_DIR}/codec_bench.json"
    --e2e "${OUT_DIR}/e2e_bench.json" --md "${md}" --png "${png}")
  file(READ "${md}" text)
  foreach(expected "## Targets" "## End to end: latency" "| bidi | 1 | 1 KiB |"
      "## Codec micro-benchmarks" "| compress | text | 1 B |" "nproc")
    string(FIND "${text}" "${expected}" at)
    if(at LESS 0)
      fail("benchmarks.md lacks \"${expected}\"")
    endif()
  endforeach()
  if(GNUPLOT)
    file(SIZE "${png}" png_size)
    if(png_size LESS 1000)
      fail("benchmarks.png is missing or empty")
    endif()
  endif()

else()
  fail("unknown STEP")
endif()
