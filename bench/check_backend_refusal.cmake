# ctest script: a benchmark given a backend it cannot run says why on one line of stderr
# and exits 2 before any work.
#   cmake -DBIN=<benchmark> -DBACKEND=<name> -DNO_WORK=<args that make a run do nothing> -P this
# BACKEND=metal must always be refused. BACKEND=cuda is refused on machines without a
# device (and in builds without CUDA); where one is present the run must instead reach
# the NO_WORK arguments' own outcome, so the test holds on every machine.
separate_arguments(no_work UNIX_COMMAND "${NO_WORK}")
execute_process(COMMAND "${BIN}" --backend "${BACKEND}" ${no_work}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
string(FIND "${err}" "--backend ${BACKEND}: " at)
if(rc EQUAL 2 AND lines EQUAL 1 AND at GREATER -1 AND out STREQUAL "")
  message(STATUS "refused: ${err}")
  return()
endif()
if(BACKEND STREQUAL "cuda" AND at EQUAL -1)
  message(STATUS "cuda is available here; the run ended with ${rc}: ${out}${err}")
  return()
endif()
message(FATAL_ERROR "${BIN} --backend ${BACKEND}: exit ${rc}, ${lines} stderr lines:\n${err}\nstdout:\n${out}")
