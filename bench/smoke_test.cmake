# Benchmark smoke test, run by CTest: each benchmark runs for a moment and
# must produce the rows and figures the report needs. It checks that numbers
# exist and are sane, never how fast anything was.
#
#   cmake -DSTEP=codec|codec_listed_cache|codec_cost|decoder|e2e|e2e_shaped|e2e_fallback|report|links|peers_report \
#     -DBINARY=... -DOUT_DIR=... -P smoke_test.cmake
# STEP=report, STEP=links and STEP=peers_report also take -DPYTHON=...
# -DREPORT=... and, if found, -DGNUPLOT=... (peers_report needs no BINARY)
#   cmake -DSTEP=busy -DSCRIPT=.../run_benchmarks.sh -DOUT_DIR=... -P ...
# plays a busy machine to scripts/run_benchmarks.sh, which must refuse it.
#
# Every step checks the binary's exit status, not only its output: CTest's
# PASS_REGULAR_EXPRESSION alone passes a binary that crashes after printing
# the line it matches.

cmake_minimum_required(VERSION 3.19)  # string(JSON)

function(fail)
  string(JOIN "" message ${ARGN})
  message(FATAL_ERROR "bench smoke (${STEP}): ${message}")
endfunction()

# Runs a command; fails unless it exits 0. Leaves its standard output in
# `run_output`.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("`${ARGN}` exited with ${rc}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# Sets `var` to string(JSON <mode>) of the path after `json`: GET for the
# member, LENGTH for an array's length. Fails if the path is missing.
function(json_query var mode json)
  string(JSON value ERROR_VARIABLE error ${mode} "${json}" ${ARGN})
  if(error)
    fail("missing ${ARGN}: ${error}")
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")

# Fails unless the report `md` holds every string after `png` and, where
# gnuplot is at hand, `png` was drawn.
function(check_report md png)
  file(READ "${md}" text)
  get_filename_component(name "${md}" NAME)
  foreach(expected ${ARGN})
    string(FIND "${text}" "${expected}" at)
    if(at LESS 0)
      fail("${name} lacks \"${expected}\"")
    endif()
  endforeach()
  if(GNUPLOT)
    file(SIZE "${png}" png_size)
    if(png_size LESS 1000)
      get_filename_component(name "${png}" NAME)
      fail("${name} is missing or empty")
    endif()
  endif()
endfunction()

# What scripts/machine_load.sh writes for a quiet step, for the reports.
function(write_conditions path)
  file(WRITE "${path}" [=[{"cpus": 2, "wall_s": 60, "load_start":
    "0.10 0.20 0.30", "load_end": "0.40 0.30 0.30", "quiet": true,
    "other_cpu_s": 0.5, "steal_s": 0.0, "own_cpu_s": 100.0,
    "settle_s": 180}]=])
endfunction()

if(STEP STREQUAL "codec")
  set(json_file "${OUT_DIR}/codec_bench.json")
  file(REMOVE "${json_file}")
  # A cold feed of a fixed size: what the machine lists must not size it.
  run("${BINARY}" --payloads=proto "--benchmark_filter=/1024/"
    --cold_feed_bytes=8388608 --benchmark_min_time=0.001
    "--benchmark_out=${json_file}" --benchmark_out_format=json)
  file(READ "${json_file}" json)
  json_query(cold_bytes GET "${json}" context cold_feed_bytes)
  if(NOT cold_bytes EQUAL 8388608)
    fail("the cold feed was ${cold_bytes} bytes, not the 8388608 asked for")
  endif()
  json_query(count LENGTH "${json}" benchmarks)
  # compress: stock + zlib 1, 6, 9 + libdeflate 1, 4, 5, 6, 7, 9 + ISA-L
  # 0..3, and the four default setups cold (sliced is one slice at 1 KiB);
  # decompress: stock + the three decoders on the three default encoders in
  # gzip and deflate, what the four default setups decode, sliced and cold,
  # and the default sender's deflate by the deflate decoder and zlib, cold.
  if(NOT count EQUAL 47)
    fail("expected 47 benchmark rows, got ${count}")
  endif()
  math(EXPR last "${count} - 1")
  set(names "")
  foreach(i RANGE ${last})
    json_query(row GET "${json}" benchmarks ${i})
    json_query(name GET "${row}" name)
    list(APPEND names "${name}")
    string(JSON error_occurred ERROR_VARIABLE no_error GET "${row}"
      error_occurred)
    if(error_occurred)
      fail("${name} reported an error")
    endif()
    foreach(counter real_time cpu_time bytes_per_second allocs_per_op
        heap_bytes_per_op zlib_state_allocs_per_op zlib_state_bytes_per_op
        minor_faults_per_op output_bytes context_heap_bytes input_slices
        messages)
      json_query(value GET "${row}" ${counter})
    endforeach()
    # The feeds must be what they claim: core's slices, many messages.
    json_query(input_slices GET "${row}" input_slices)
    json_query(messages GET "${row}" messages)
    if(name MATCHES "/sliced$" AND NOT input_slices GREATER 1)
      fail("${name}: ${input_slices} input slice(s)")
    endif()
    if(name MATCHES "/cold$" AND NOT messages GREATER 1000)
      fail("${name}: only ${messages} distinct messages")
    endif()
    json_query(iterations GET "${row}" iterations)
    if(iterations LESS 1)
      fail("${name} ran no iterations")
    endif()
    json_query(output_bytes GET "${row}" output_bytes)
    if(NOT output_bytes GREATER 0)
      fail("${name} produced no output")
    endif()
    # The interposer must see zlib's own mallocs: core's path allocates a
    # fresh deflate state (5 blocks) for every message.
    if(name MATCHES "^compress/.*/stock(/[a-z]+)?$")
      json_query(zlib_allocs GET "${row}" zlib_state_allocs_per_op)
      if(NOT zlib_allocs GREATER_EQUAL 5)
        fail("${name}: zlib state allocations not counted (${zlib_allocs})")
      endif()
    elseif(NOT name MATCHES "/stock(/[a-z]+)?$")
      json_query(context_bytes GET "${row}" context_heap_bytes)
      if(NOT context_bytes GREATER 0)
        fail("${name}: no heap per context")
      endif()
    endif()
  endforeach()
  foreach(expected compress/proto/1024/zlib-6 compress/proto/1024/libdeflate-6
      compress/proto/1024/isal-1 compress/proto/1024/isal-1/cold
      decompress/proto/1024/libdeflate@zlib-6
      decompress/proto/1024/isal@libdeflate-6
      decompress/proto/1024/zlib@isal-1/deflate
      decompress/proto/1024/libdeflate@libdeflate-6/sliced
      decompress/proto/1024/stock/cold
      decompress/proto/1024/isal@libdeflate-6/deflate/cold)
    if(NOT expected IN_LIST names)
      fail("no ${expected} row")
    endif()
  endforeach()

  # Sizes of one's own are detail cells, and a cold feed may rotate over
  # several contexts: each op then reaches every one of them.
  set(json_file "${OUT_DIR}/codec_bench_contexts.json")
  file(REMOVE "${json_file}")
  run("${BINARY}" --payloads=proto --sizes=300 --cold_contexts=4
    --cold_feed_bytes=1048576
    "--benchmark_filter=^(de)?compress/proto/300/(libdeflate-6|isal@libdeflate-6/deflate)/cold$"
    --benchmark_min_time=0.001 "--benchmark_out=${json_file}"
    --benchmark_out_format=json)
  file(READ "${json_file}" json)
  json_query(contexts GET "${json}" context cold_contexts)
  json_query(count LENGTH "${json}" benchmarks)
  if(NOT contexts EQUAL 4 OR NOT count EQUAL 2)
    fail("expected 2 rows over 4 contexts, got ${count} over ${contexts}")
  endif()
  foreach(i 0 1)
    json_query(row GET "${json}" benchmarks ${i})
    string(JSON error_occurred ERROR_VARIABLE no_error GET "${row}"
      error_occurred)
    if(error_occurred)
      json_query(name GET "${row}" name)
      fail("${name} reported an error")
    endif()
  endforeach()

elseif(STEP STREQUAL "codec_listed_cache")
  # The cold feed is twice the listed last-level cache, at most 128 MiB: a
  # small listing and a huge one (a virtual CPU listed 480 MiB), faked.
  foreach(case "8192K;16777216" "491520K;134217728")
    list(GET case 0 listed)
    list(GET case 1 expected)
    set(listing "${OUT_DIR}/listed_cache_size")
    file(WRITE "${listing}" "${listed}\n")
    set(json_file "${OUT_DIR}/codec_bench_listed_cache.json")
    file(REMOVE "${json_file}")
    run("${BINARY}" --payloads=proto "--cache_size_file=${listing}"
      "--benchmark_filter=^compress/proto/1024/stock$"
      --benchmark_min_time=0.001 "--benchmark_out=${json_file}"
      --benchmark_out_format=json)
    file(READ "${json_file}" json)
    json_query(cold_bytes GET "${json}" context cold_feed_bytes)
    if(NOT cold_bytes EQUAL expected)
      fail("a listed cache of ${listed} gave a cold feed of ${cold_bytes} "
        "bytes, not ${expected}")
    endif()
  endforeach()

elseif(STEP STREQUAL "codec_cost")
  # A skipped random message goes out plain (compressed=0) at its own size.
  run("${BINARY}" --benchmark_min_time=0.001
    "--benchmark_filter=clock/overhead|skip/random/1024/on")
  if(NOT run_output MATCHES
      "skip/random/1024/on[^\n]*compressed=0 input_bytes=1024 output_bytes=1024")
    fail("no skip/random/1024/on row sent plain at its size:\n${run_output}")
  endif()

elseif(STEP STREQUAL "decoder")
  # Every decoder on one cell per format: each decoded the message to its
  # bytes (a wrong output is reported as an error), and the table has both
  # rows with every column filled and the fastest named.
  run("${BINARY}" --benchmark_min_time=0.001
    "--benchmark_filter=/proto/65536/zlib-6/")
  if(run_output MATCHES "ERROR OCCURRED")
    fail("a decoder failed:\n${run_output}")
  endif()
  foreach(format gzip deflate)
    # CMake's regular expressions have no {n}.
    # The default decoder's time is in bold.
    set(time " [*]*[0-9.]+ [um]s[*]* [|]")
    set(ratio " [0-9.]+x [|]")
    if(NOT run_output MATCHES
        "[|] ${format} [|] proto [|] 64 KiB [|] zlib-6 [|]${time}${time}${time}${time}${time}${ratio}${ratio}${ratio} (zlib|libdeflate|isal) [|]")
      fail("no complete ${format} row in the table:\n${run_output}")
    endif()
  endforeach()

elseif(STEP STREQUAL "e2e")
  set(json_file "${OUT_DIR}/e2e_bench.json")
  file(REMOVE "${json_file}")
  # Every setup in its own server and client process; a short load cell.
  run("${BINARY}" --sizes=1024 --kinds=proto
    --setups=none,stock,zlib-6,libdeflate,isal-1 --reps=1 --budget_ms=20
    --warmup_ms=5 --min_messages=2 --load_threads=4 --load_budget_ms=40
    --load_warmup_ms=10
    "--out=${json_file}")
  file(READ "${json_file}" json)
  json_query(count LENGTH "${json}" rows)
  # 1 latency cell and 1 load cell x 5 setups
  if(NOT count EQUAL 10)
    fail("expected 10 rows, got ${count}")
  endif()
  math(EXPR last "${count} - 1")
  set(setups_seen "")
  set(load_rows 0)
  foreach(i RANGE ${last})
    json_query(row GET "${json}" rows ${i})
    json_query(setup GET "${row}" setup)
    list(APPEND setups_seen ${setup})
    json_query(messages GET "${row}" messages)
    json_query(errors GET "${row}" errors)
    if(messages LESS 2 OR NOT errors EQUAL 0)
      fail("row ${i} (${setup}): ${messages} round trips, ${errors} errors")
    endif()
    foreach(key p50_us p99_us msgs_per_s cpu_us_per_msg client_cpu_us_per_msg
        server_cpu_us_per_msg allocs_per_msg heap_bytes_per_msg
        deflate_state_allocs_per_msg inflate_state_allocs_per_msg
        pool_created pool_reused client_rss_bytes server_rss_bytes
        request_bytes rep_p50_us)
      json_query(value GET "${row}" ${key})
    endforeach()
    json_query(p50 GET "${row}" p50_us)
    json_query(wire GET "${row}" wire_bytes)
    json_query(server_rss GET "${row}" server_rss_bytes)
    if(NOT p50 GREATER 0 OR NOT wire GREATER 0 OR NOT server_rss GREATER 0)
      fail("row ${i} (${setup}): no latency, wire bytes or server figures")
    endif()
    json_query(threads GET "${row}" threads)
    if(threads EQUAL 4)
      math(EXPR load_rows "${load_rows} + 1")
    endif()
  endforeach()
  if(NOT load_rows EQUAL 5)
    fail("expected 5 load rows, got ${load_rows}")
  endif()
  list(REMOVE_DUPLICATES setups_seen)
  list(SORT setups_seen)
  if(NOT setups_seen STREQUAL "isal-1;libdeflate-6;none;stock;zlib-6")
    fail("setups: ${setups_seen}")
  endif()

elseif(STEP STREQUAL "peers")
  set(json_file "${OUT_DIR}/peers.json")
  file(REMOVE "${json_file}")
  # Every server, each in its own process, one call at a time and under a
  # small load, from our client, and under load from h2load too; one
  # payload.
  run("${BINARY}" --sizes=1024 --kinds=records --reps=1 --budget_ms=40
    --warmup_ms=10 --load_threads=4 --load_budget_ms=60 --load_warmup_ms=20
    --h2load_warmup_ms=20 "--out=${json_file}")
  file(READ "${json_file}" json)
  json_query(count LENGTH "${json}")
  if(NOT count EQUAL 24)
    fail("expected 8 setups x 2 modes (ours) + 8 (h2load), got ${count} rows")
  endif()
  math(EXPR last "${count} - 1")
  set(seen "")
  foreach(i RANGE ${last})
    json_query(row GET "${json}" ${i})
    json_query(setup GET "${row}" setup)
    json_query(mode GET "${row}" mode)
    json_query(client GET "${row}" client)
    if(client STREQUAL "h2load")
      if(NOT mode STREQUAL "load")
        fail("h2load drove ${setup} in ${mode}")
      endif()
      set(mode "h2load")  # a mode of its own below
    endif()
    list(APPEND seen "${mode}/${setup}")
    json_query(requests GET "${row}" requests)
    if(requests LESS 2)
      fail("${mode} ${setup}: ${requests} requests")
    endif()
    foreach(key server_cpu_us_per_request requests_per_s p50_us p99_us
        server_peak_rss_kib wire_bytes_per_message)
      json_query(value GET "${row}" ${key})
      if(NOT value GREATER 0)
        fail("${mode} ${setup}: ${key} is ${value}")
      endif()
    endforeach()
    json_query(wire_${mode}_${setup} GET "${row}" wire_bytes_per_message)
  endforeach()
  list(LENGTH seen distinct)
  list(REMOVE_DUPLICATES seen)
  list(LENGTH seen unique)
  if(NOT distinct EQUAL unique)
    fail("a setup ran twice in a mode: ${seen}")
  endif()
  # Replies: plain from every -none server and from grpc-js (its server
  # never compresses); gzip from the others, smaller. h2load's requests
  # differ from ours (zlib-6's bytes, not libdeflate's), but each server's
  # replies are the same bytes whoever asks.
  foreach(setup cpp-none cpp-stock cpp-default cpp-isal1 go-none go-gzip
      js-none js-gzip)
    if(NOT wire_h2load_${setup} EQUAL wire_load_${setup})
      fail("${setup}: h2load read ${wire_h2load_${setup}} bytes a reply, "
        "our client ${wire_load_${setup}}")
    endif()
  endforeach()
  foreach(mode single load)
    set(plain "${wire_${mode}_cpp-none}")
    foreach(setup go-none js-none js-gzip)
      if(NOT wire_${mode}_${setup} EQUAL plain)
        fail("${mode} ${setup}: ${wire_${mode}_${setup}} wire bytes, "
          "not the plain ${plain}")
      endif()
    endforeach()
    foreach(setup cpp-stock cpp-default cpp-isal1 go-gzip)
      if(NOT wire_${mode}_${setup} LESS plain)
        fail("${mode} ${setup}: ${wire_${mode}_${setup}} wire bytes, "
          "not compressed below ${plain}")
      endif()
    endforeach()
  endforeach()

elseif(STEP STREQUAL "peers_unserved")
  # A grpc-go server that claims a port where nothing listens, and one that
  # dies once it has said where it listens: each fails the run, naming the
  # server, and leaves no figures.
  set(json_file "${OUT_DIR}/peers_unserved.json")
  file(WRITE "${OUT_DIR}/not_listening.sh" [=[#!/bin/sh
echo "listening on 127.0.0.1:1"
exec tail -f /dev/null
]=])
  file(WRITE "${OUT_DIR}/dying.sh" "#!/bin/bash
coproc SERVER { exec '${GO_ECHO_SERVER}' \"\$@\"; }
pid=\$SERVER_PID
IFS= read -r line <&\"\${SERVER[0]}\"
echo \"\$line\"
kill -9 \$pid
exit 9
")
  foreach(case not_listening dying)
    file(CHMOD "${OUT_DIR}/${case}.sh" PERMISSIONS OWNER_READ OWNER_WRITE
      OWNER_EXECUTE)
    file(REMOVE "${json_file}")
    execute_process(COMMAND "${BINARY}" --setups=cpp-none,go-none
      --sizes=1024 --kinds=records --modes=single --reps=1 --budget_ms=20
      --warmup_ms=5 "--go_echo_server=${OUT_DIR}/${case}.sh"
      "--out=${json_file}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      fail("${case}: the run passed\n${out}")
    endif()
    if(case STREQUAL "not_listening")
      set(expected "could not use the go-none server on port 1")
    else()
      set(expected "go-none server exited [^\n]*exit code 9")
    endif()
    if(NOT err MATCHES "${expected}" OR NOT err MATCHES "no figures were written")
      fail("${case}: expected \"${expected}\" in\n${err}")
    endif()
    if(EXISTS "${json_file}")
      fail("${case}: figures were written")
    endif()
  endforeach()

elseif(STEP STREQUAL "peers_h2load_errors")
  # h2load reads HTTP, not gRPC: a server that answers every call with a
  # gRPC error (as an HTTP 200), one that answers only its first call so,
  # and a port where nothing listens must each fail the run, naming the
  # server and quoting h2load's lines, and leave no figures.
  set(json_file "${OUT_DIR}/peers_h2load_errors.json")
  file(WRITE "${OUT_DIR}/no_service.py" [=[#!/usr/bin/python3
from concurrent import futures
import grpc
server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print("listening on 127.0.0.1:%d" % port, flush=True)
server.wait_for_termination()
]=])
  file(WRITE "${OUT_DIR}/first_call_only.py" [=[#!/usr/bin/python3
import itertools
from concurrent import futures
import grpc
calls = itertools.count()
def unary(request, context):
    if next(calls) > 0:
        context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "one call only")
    return request  # EchoRequest's payload is EchoResponse's field 1 too
handler = grpc.method_handlers_generic_handler(
    "pooled_gzip.echo.Echo",
    {"Unary": grpc.unary_unary_rpc_method_handler(unary)})
server = grpc.server(futures.ThreadPoolExecutor(max_workers=2),
                     handlers=[handler])
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print("listening on 127.0.0.1:%d" % port, flush=True)
server.wait_for_termination()
]=])
  file(WRITE "${OUT_DIR}/h2load_not_listening.sh" [=[#!/bin/sh
echo "listening on 127.0.0.1:1"
exec tail -f /dev/null
]=])
  foreach(case no_service first_call_only h2load_not_listening)
    if(case STREQUAL "h2load_not_listening")
      set(server "${OUT_DIR}/${case}.sh")
      set(expected "h2load against the go-none server on port 1: of h2load's requests, 1 failed")
    else()
      set(server "${OUT_DIR}/${case}.py")
      if(case STREQUAL "no_service")
        set(expected "one request got 0 bytes of reply")
      else()
        set(expected "bytes in its window, fewer than")
      endif()
    endif()
    file(CHMOD "${server}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    file(REMOVE "${json_file}")
    execute_process(COMMAND "${BINARY}" --clients=h2load --setups=go-none
      --sizes=1024 --kinds=records --modes=load --reps=1 --load_budget_ms=300
      --h2load_warmup_ms=50 "--go_echo_server=${server}" "--out=${json_file}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      fail("${case}: the run passed\n${out}")
    endif()
    if(NOT err MATCHES "h2load against the go-none server" OR
        NOT err MATCHES "${expected}" OR
        NOT err MATCHES "h2load printed:\nrequests: [0-9]+ total" OR
        NOT err MATCHES "no figures were written")
      fail("${case}: expected \"${expected}\" and h2load's lines in\n${err}")
    endif()
    if(EXISTS "${json_file}")
      fail("${case}: figures were written")
    endif()
  endforeach()

elseif(STEP STREQUAL "e2e_shaped" OR STEP STREQUAL "e2e_fallback")
  # A 100 Mbit/s link: shaped where this machine lets the benchmark make a
  # network namespace and run tc (root, tc, unshare allowed), else the
  # fallback, which e2e_fallback forces with a tc that does not exist.
  set(can_shape FALSE)
  if(STEP STREQUAL "e2e_shaped")
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    find_program(TC_PROGRAM tc PATHS /usr/sbin /sbin)
    find_program(UNSHARE_PROGRAM unshare PATHS /usr/bin /bin)
    if(uid STREQUAL "0" AND TC_PROGRAM AND UNSHARE_PROGRAM)
      execute_process(COMMAND "${UNSHARE_PROGRAM}" -n true
        RESULT_VARIABLE unshare_rc OUTPUT_QUIET ERROR_QUIET)
      if(unshare_rc EQUAL 0)
        set(can_shape TRUE)
      endif()
    endif()
    set(tc_flag "")
  else()
    set(tc_flag "--tc=${OUT_DIR}/no-such-dir/tc")
  endif()
  set(json_file "${OUT_DIR}/${STEP}.json")
  file(REMOVE "${json_file}")
  execute_process(COMMAND "${BINARY}" --link=100mbit ${tc_flag} --sizes=1024
    --kinds=proto --setups=none,default --reps=1 --budget_ms=20 --warmup_ms=5
    --min_messages=2 --load_threads=2 --load_kind=proto --load_size=1024
    --load_budget_ms=20 --load_warmup_ms=5 "--out=${json_file}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("exited with ${rc}\n${out}\n${err}")
  endif()
  file(READ "${json_file}" json)
  # One stream, then the throughput cell's two, for each setup.
  json_query(count LENGTH "${json}" rows)
  if(NOT count EQUAL 4)
    fail("expected 4 rows, got ${count}")
  endif()
  foreach(i 0 1 2 3)
    json_query(row GET "${json}" rows ${i})
    json_query(messages GET "${row}" messages)
    json_query(errors GET "${row}" errors)
    if(messages LESS 2 OR NOT errors EQUAL 0)
      fail("row ${i}: ${messages} round trips, ${errors} errors")
    endif()
  endforeach()
  json_query(shaped GET "${json}" link_shaped)
  json_query(description GET "${json}" link_description)
  if(can_shape)
    json_query(rate GET "${json}" link_rate_bits_per_s)
    if(NOT shaped OR NOT rate EQUAL 100000000 OR
        NOT out MATCHES "link: 100 Mbit/s: [^;]*tbf rate 100000000bit")
      fail("root, tc and unshare are here, but the link was not shaped: "
        "${description}\n${out}\n${err}")
    endif()
  else()
    # Said on stderr and stated in the output and the JSON.
    if(shaped OR NOT err MATCHES "asked for 100 Mbit/s, but [^\n]*; running on plain loopback"
        OR NOT out MATCHES "link: loopback, unshaped: asked for 100 Mbit/s")
      fail("no fallback stated: ${description}\n${out}\n${err}")
    endif()
    if(STEP STREQUAL "e2e_fallback" AND NOT err MATCHES "no tc at ")
      fail("the forced fallback does not name the missing tc:\n${err}")
    endif()
  endif()
  message(STATUS "link: ${description}")

elseif(STEP STREQUAL "report")
  set(md "${OUT_DIR}/benchmarks.md")
  set(png "${OUT_DIR}/benchmarks.png")
  file(REMOVE "${md}" "${png}")
  write_conditions("${OUT_DIR}/conditions_report.json")
  run("${PYTHON}" "${REPORT}" --codec "${OUT_DIR}/codec_bench.json"
    --e2e "${OUT_DIR}/e2e_bench.json" --md "${md}" --png "${png}"
    --conditions "${OUT_DIR}/conditions_report.json")
  check_report("${md}" "${png}"
      "## At a glance" "## Choosing the default"
      "Load average (1, 5, 15 min) 0.10 0.20 0.30 at the start"
      "## End to end: latency" "| proto | 1 KiB |"
      "## Server throughput under concurrent load" "## Codec micro-benchmarks"
      "### compress, 1 KiB" "| isal-1 |" "nproc")

elseif(STEP STREQUAL "links")
  # When compression pays, from the two link runs above: one per link.
  set(md "${OUT_DIR}/links.md")
  set(png "${OUT_DIR}/links.png")
  file(REMOVE "${md}" "${png}")
  write_conditions("${OUT_DIR}/conditions_links.json")
  run("${PYTHON}" "${REPORT}" --e2e "${OUT_DIR}/e2e_fallback.json"
    "${OUT_DIR}/e2e_shaped.json" --md "${md}" --png "${png}"
    --conditions "${OUT_DIR}/conditions_links.json")
  check_report("${md}" "${png}"
      "# When compression pays" "## What to turn on"
      "## Throughput, several streams at once" "| 2 x records 1 KiB |"
      "## Winner of each cell" "| records | 1 KiB |" "100mbit (not shaped)"
      "skip_incompressible")

elseif(STEP STREQUAL "peers_report")
  # results/peers.md from made-up peers_bench rows at 1 KiB, records and
  # words. Our client's, in both modes, are 20 us of CPU per request above
  # the one before, so that grpc-go's and grpc-js's gzip add 20 us, stock
  # 20, the default 40 and ISA-L-1 60 (default / go 2.00x). h2load's, under
  # load, have the default add 80 against grpc-go's 20 on records (4.00x:
  # h2load is the less favourable client there) and 10 against 50 on words
  # (0.20x: ours is). Its own file names: STEP=peers writes peers.json here.
  set(input "${OUT_DIR}/peers_report_input.json")
  set(md "${OUT_DIR}/peers_report.md")
  set(png "${OUT_DIR}/peers_report.png")
  file(REMOVE "${md}" "${png}")
  set(setups cpp-none cpp-stock cpp-default cpp-isal1 go-none go-gzip js-none
    js-gzip)
  set(ours_cpu 120.5 140.5 160.5 180.5 200.5 220.5 240.5 260.5)
  set(h2load_records_cpu 100 130 180 150 200 220 300 350)
  set(h2load_words_cpu 100 130 110 105 200 250 300 350)
  set(json "[")
  set(separator "")
  foreach(client ours h2load)
    foreach(kind records words)
      foreach(mode single load)
        if(client STREQUAL "h2load" AND mode STREQUAL "single")
          continue()
        endif()
        foreach(i RANGE 7)
          list(GET setups ${i} setup)
          if(client STREQUAL "ours")
            list(GET ours_cpu ${i} cpu)
            set(name "cpp-default")
          else()
            list(GET h2load_${kind}_cpu ${i} cpu)
            set(name "h2load")
          endif()
          string(APPEND json "${separator}
  {\"size\": 1024, \"kind\": \"${kind}\", \"setup\": \"${setup}\", "
            "\"client\": \"${name}\", \"mode\": \"${mode}\", "
            "\"server_cpu_us_per_request\": ${cpu}, "
            "\"requests_per_s\": 5000.0, \"p50_us\": 200.0, \"p99_us\": 400.0, "
            "\"server_peak_rss_kib\": 20480, "
            "\"wire_bytes_per_message\": 850.0, \"requests\": 1000, "
            "\"reps\": 1}")
          set(separator ",")
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  file(WRITE "${input}" "${json}\n]\n")
  write_conditions("${OUT_DIR}/conditions_peers_report.json")
  run("${PYTHON}" "${REPORT}" --json "${input}"
    --conditions "${OUT_DIR}/conditions_peers_report.json" --md "${md}"
    --png "${png}")
  set(records_h2load
    "| 1 KiB | records | h2load | 20.0 | 50.0 | 30.0 | 80.0 | 50.0 | 0.25x | 0.40x | 4.00x | 2.50x |")
  set(records_ours
    "| 1 KiB | records | ours | 20.0 | 20.0 | 20.0 | 40.0 | 60.0 | 0.50x | 0.33x | 2.00x | 3.00x |")
  set(words_ours
    "| 1 KiB | words | ours | 20.0 | 20.0 | 20.0 | 40.0 | 60.0 | 0.50x | 0.33x | 2.00x | 3.00x |")
  set(words_h2load
    "| 1 KiB | words | h2load | 50.0 | 50.0 | 30.0 | 10.0 | 5.0 | 5.00x | 10.00x | 0.20x | 0.10x |")
  check_report("${md}" "${png}"
      "## What compression adds to the server under load"
      "| size | kind | client | grpc-go gzip us |"
      "| go / default |" "## Reading it" "### Each client"
      "${records_h2load}" "${records_ours}" "${words_ours}" "${words_h2load}"
      "- 1 KiB records, under h2load: grpc-go's gzip adds 20.0 us"
      "; under ours, default / go 2.00x, ISA-L-1 / go 3.00x."
      "## One call at a time" "## Under load, 32 concurrent calls"
      "| 1 KiB | records | js-gzip | ours |"
      "| 1 KiB | records | js-gzip | h2load |"
      "Load average (1, 5, 15 min) 0.10 0.20 0.30 at the start")
  # The headline, the first table (the one README's figures bind to), has
  # each cell's less favourable client only.
  file(READ "${md}" text)
  string(FIND "${text}" "### Each client" each)
  string(SUBSTRING "${text}" 0 ${each} headline)
  foreach(row "${records_h2load}" "${words_ours}")
    string(FIND "${headline}" "${row}" at)
    if(at LESS 0)
      fail("the headline lacks ${row}")
    endif()
  endforeach()
  foreach(row "${records_ours}" "${words_h2load}")
    string(FIND "${headline}" "${row}" at)
    if(NOT at LESS 0)
      fail("the headline has the more favourable ${row}")
    endif()
  endforeach()

elseif(STEP STREQUAL "busy")
  # A load average of 1.50 on 2 cores, that does not settle: the script
  # must stop before it builds or writes anything. The load and the core
  # count are given, so the refusal is the same on any machine.
  set(root "${OUT_DIR}/busy")
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}")
  file(WRITE "${root}/loadavg" "1.50 1.40 1.30 3/200 12345\n")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env LOADAVG_FILE=${root}/loadavg CPUS=2
      SETTLE_SECONDS=0 RESULTS_DIR=${root}/results
      BUILD_DIR=${root}/build bash "${SCRIPT}" --quick
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 3)
    fail("a busy machine gave status ${rc}, not 3\n${out}\n${err}")
  endif()
  if(NOT err MATCHES "busy before the run: load average 1.50 1.40 1.30")
    fail("the refusal does not name the load:\n${err}")
  endif()
  foreach(dir results build)
    if(EXISTS "${root}/${dir}")
      fail("a refused run created ${root}/${dir}")
    endif()
  endforeach()

else()
  fail("unknown STEP")
endif()
