/* Times eigsolve_dsymv through the C API with CUDA events: 'L' and 'U' at order n (GB/s over
 * n^2/2 elements), and the per-call cost of small calls (plain and handle entry points).
 *
 *   symv_c_api_timing [n] [reps]        (default n = 16384, reps = 20; exit 0 without a device) */
#include <cuda_runtime.h>
#include <eigsolve/symv.h>
#include <stdio.h>
#include <stdlib.h>

static float time_ms(cudaStream_t s, eigsolve_handle_t h, char uplo, int64_t n, const double* A,
                     const double* x, double* y, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  eigsolve_dsymv_h(h, uplo, n, 1.0, A, n, x, 1, 0.0, y, 1); /* warm-up (workspace, tables) */
  cudaEventRecord(a, s);
  for (int r = 0; r < reps; ++r) {
    const int st = eigsolve_dsymv_h(h, uplo, n, 1.0, A, n, x, 1, 0.0, y, 1);
    if (st) {
      fprintf(stderr, "status %d: %s (%s)\n", st, eigsolve_status_string(st),
              eigsolve_last_error());
      exit(1);
    }
  }
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / (float)reps;
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 16384;
  const int reps = argc > 2 ? atoi(argv[2]) : 20;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 || !eigsolve_cuda_compiled()) {
    printf("no CUDA device (or a CPU-only libeigsolve): nothing to time\n");
    return 0;
  }
  double *A, *x, *y;
  if (cudaMalloc((void**)&A, sizeof(double) * (size_t)(n * n)) != cudaSuccess ||
      cudaMalloc((void**)&x, sizeof(double) * (size_t)n) != cudaSuccess ||
      cudaMalloc((void**)&y, sizeof(double) * (size_t)n) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  /* Any finite data will do for timing: 1/1024 everywhere (exact, never overflows). */
  {
    double* h = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; ++i)
      h[i] = 1.0 / 1024.0;
    for (int64_t j = 0; j < n; ++j)
      cudaMemcpy(A + j * n, h, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice);
    cudaMemcpy(x, h, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice);
    free(h);
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  eigsolve_handle_t h;
  if (eigsolve_create(&h) || eigsolve_set_stream(h, s)) return 1;
  const double bytes = (double)n * (double)n / 2.0 * sizeof(double);
  const float ml = time_ms(s, h, 'L', n, A, x, y, reps);
  const float mu = time_ms(s, h, 'U', n, A, x, y, reps);
  printf("dsymv n=%lld: 'L' %.4f ms %.0f GB/s, 'U' %.4f ms %.0f GB/s\n", (long long)n, ml,
         bytes / (ml * 1e6), mu, bytes / (mu * 1e6));
  /* Small calls: host time per call (enqueue only, then one sync). */
  for (int64_t m = 32; m <= 512; m *= 4) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    const int k = 2000;
    eigsolve_dsymv_h(h, 'L', m, 1.0, A, n, x, 1, 0.0, y, 1);
    cudaStreamSynchronize(s);
    cudaEventRecord(a, s);
    for (int r = 0; r < k; ++r)
      eigsolve_dsymv_h(h, 'L', m, 1.0, A, n, x, 1, 0.0, y, 1);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms_h = 0.0f;
    cudaEventElapsedTime(&ms_h, a, b);
    eigsolve_dsymv('L', m, 1.0, A, n, x, 1, 0.0, y, 1);
    cudaDeviceSynchronize();
    cudaEventRecord(a, 0);
    for (int r = 0; r < k; ++r)
      eigsolve_dsymv('L', m, 1.0, A, n, x, 1, 0.0, y, 1);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms_p = 0.0f;
    cudaEventElapsedTime(&ms_p, a, b);
    printf("dsymv n=%lld back to back: handle %.2f us/call, plain %.2f us/call\n", (long long)m,
           1e3 * ms_h / k, 1e3 * ms_p / k);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  eigsolve_destroy(h);
  cudaStreamDestroy(s);
  cudaFree(A);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
