# bench_reader: Matrix Market read throughput (MB/s of text) for array and coordinate files.
add_executable(bench_reader ${CMAKE_CURRENT_SOURCE_DIR}/bench_reader.cpp)
target_link_libraries(bench_reader PRIVATE eigsolve_io nlohmann_json::nlohmann_json)
# bench_writer: time of write_dense (.mtx, dd and double) and write_eigenvalues (dd).
add_executable(bench_writer ${CMAKE_CURRENT_SOURCE_DIR}/bench_writer.cpp)
target_link_libraries(bench_writer PRIVATE eigsolve_io nlohmann_json::nlohmann_json)
