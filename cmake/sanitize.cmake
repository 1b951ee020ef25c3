# NPGPU_SANITIZE names the GCC/Clang sanitizers (e.g. address,undefined) that every target of this
# build is compiled and linked with; empty, the default, for none. Findings stop the program
# (-fno-sanitize-recover=all) and the tests of such a build run under NPGPU_TEST_LAUNCHER, which
# gives them (and, through mpirun, every rank they start) the sanitizers' settings.
set(NPGPU_SANITIZE "" CACHE STRING "Sanitizers to build with, comma-separated (e.g. address,undefined); empty for none")
set(NPGPU_TEST_LAUNCHER "")

if(NOT NPGPU_SANITIZE)
  set(NPGPU_SANITIZE_SUMMARY "none")
  return()
endif()
if(NPGPU_HAVE_CUDA)
  # nvcc compiles the .cu files without them, and the CUDA driver needs ASan told about it.
  message(FATAL_ERROR "NPGPU_SANITIZE is for the CPU-only build: add -DNPGPU_CUDA=OFF")
endif()

# -O1, after the build type's -O3: the sanitizers' own advice, and half the CPU time of the
# sanitized build (5.9 against 10.1 minutes of CPU here) for a test pass that barely changes.
add_compile_options(-fsanitize=${NPGPU_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -O1)
add_link_options(-fsanitize=${NPGPU_SANITIZE})
# exitcode: a finding must not pass for one of npgpu's own exit codes (0 to 4) that a test expects.
# fast_unwind_on_malloc=0: full stacks, which the suppressions need to see Open MPI's libraries.
# intercept_tls_get_addr=0: up to GCC 13 the runtime takes a dynamic TLS block (Open MPI's and
# PMIx's threads have them) whose address happens to end in 16 for a glibc 2.19 header, reads a
# garbage range from it and the leak check's tracer dies with SIGSEGV (exit 86 with no leak, on
# one machine in every run, on another never). Off, the check no longer scans dynamic TLS for
# pointers: that can only report more leaks, never hide one, and npgpu keeps nothing there.
set(NPGPU_SANITIZER_EXIT_CODE 86)
set(_npgpu_sanitizer_exit exitcode=${NPGPU_SANITIZER_EXIT_CODE})
set(NPGPU_TEST_LAUNCHER ${CMAKE_COMMAND} -E env
    ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0:${_npgpu_sanitizer_exit}
    LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:${_npgpu_sanitizer_exit})
set(NPGPU_SANITIZE_SUMMARY "${NPGPU_SANITIZE}: findings stop the program with exit code ${NPGPU_SANITIZER_EXIT_CODE}; tests run with tests/lsan.supp")
