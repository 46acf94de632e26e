# bench_eig: eigensolve<double> (bisection) against LAPACKE ?syevd in the same process.
add_executable(bench_eig ${CMAKE_CURRENT_SOURCE_DIR}/bench_eig.cpp)
target_link_libraries(bench_eig PRIVATE eigsolve_solver eigsolve_lapack nlohmann_json::nlohmann_json)
