# bench_tridiag: canonical CPU tridiagonalization / SYMV vs LAPACKE_dsytrd / cblas_dsymv.
add_executable(bench_tridiag ${CMAKE_CURRENT_SOURCE_DIR}/bench_tridiag.cpp)
target_link_libraries(bench_tridiag PRIVATE eigsolve_householder eigsolve_lapack
                                            nlohmann_json::nlohmann_json)
