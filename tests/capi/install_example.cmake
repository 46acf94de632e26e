# ctest -R capi_install_example: `cmake --install` of this build into a scratch prefix, then
# examples/symv_c_api configured with find_package(eigsolve), built with -Wall -Werror, and run
# (without a device it prints a message and exits 0).
# -DBINARY_DIR=<this build> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch folder>
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/symv_c_api -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/symv_c_api)
