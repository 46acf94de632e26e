# bench_reader: Matrix Market read throughput (MB/s of text) for array and coordinate files.
add_executable(bench_reader ${CMAKE_CURRENT_SOURCE_DIR}/bench_reader.cpp)
target_link_libraries(bench_reader PRIVATE eigsolve_io nlohmann_json::nlohmann_json)
