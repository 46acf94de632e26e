/* y := alpha*A*x + beta*y on the GPU through eigsolve's C API, for the lower and the upper
 * storage of the same symmetric matrix (same bits: 'U' is canonically 'L' on the transposed
 * storage), on the default stream and on a handle with its own stream. Plain C99.
 *
 * Exit status: 0 success (or no CUDA device / a CPU-only libeigsolve: a message, nothing run),
 * 1 a failed call or a wrong result. */
#include <cuda_runtime.h>
#include <eigsolve/symv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

static int check(int status, const char* what) {
  if (status != EIGSOLVE_STATUS_SUCCESS) {
    fprintf(stderr, "%s: status %d: %s (%s)\n", what, status, eigsolve_status_string(status),
            eigsolve_last_error());
    return 1;
  }
  return 0;
}

int main(void) {
  printf("libeigsolve %s, CUDA backend %s\n", eigsolve_version(),
         eigsolve_cuda_compiled() ? "compiled" : "NOT compiled");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: nothing to run\n");
    return 0;
  }
  if (!eigsolve_cuda_compiled()) return 0;

  /* A(i, j) = 1 / (1 + i + j) (symmetric); lower and upper storage in two arrays, the other
   * triangle filled with NaN (never read). x(i) = 1. */
  const int64_t n = N, lda = N;
  double* lower = malloc(sizeof(double) * N * N);
  double* upper = malloc(sizeof(double) * N * N);
  double* x = malloc(sizeof(double) * N);
  double* y_l = malloc(sizeof(double) * N);
  double* y_u = malloc(sizeof(double) * N);
  if (!lower || !upper || !x || !y_l || !y_u) return 1;
  for (int64_t j = 0; j < n; ++j) {
    x[j] = 1.0;
    for (int64_t i = 0; i < n; ++i) {
      const double a = 1.0 / (double)(1 + i + j);
      lower[i + j * lda] = i >= j ? a : NAN;
      upper[i + j * lda] = i <= j ? a : NAN;
    }
  }
  double *dL, *dU, *dx, *dy;
  if (cudaMalloc((void**)&dL, sizeof(double) * N * N) != cudaSuccess ||
      cudaMalloc((void**)&dU, sizeof(double) * N * N) != cudaSuccess ||
      cudaMalloc((void**)&dx, sizeof(double) * N) != cudaSuccess ||
      cudaMalloc((void**)&dy, sizeof(double) * N) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(dL, lower, sizeof(double) * N * N, cudaMemcpyHostToDevice);
  cudaMemcpy(dU, upper, sizeof(double) * N * N, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(double) * N, cudaMemcpyHostToDevice);

  /* 1. The plain BLAS-style call (legacy default stream): y := A x (beta = 0: y not read). */
  if (check(eigsolve_dsymv('L', n, 1.0, dL, lda, dx, 1, 0.0, dy, 1), "eigsolve_dsymv L")) return 1;
  cudaMemcpy(y_l, dy, sizeof(double) * N, cudaMemcpyDeviceToHost);

  /* 2. A handle on a stream of our own, upper storage. */
  cudaStream_t stream;
  eigsolve_handle_t h;
  cudaStreamCreate(&stream);
  if (check(eigsolve_create(&h), "eigsolve_create")) return 1;
  if (check(eigsolve_set_stream(h, stream), "eigsolve_set_stream")) return 1;
  if (check(eigsolve_dsymv_h(h, 'U', n, 1.0, dU, lda, dx, 1, 0.0, dy, 1), "eigsolve_dsymv_h U"))
    return 1;
  cudaMemcpyAsync(y_u, dy, sizeof(double) * N, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);

  /* 3. A wrong argument is a status, not a crash. */
  const int bad = eigsolve_dsymv('X', n, 1.0, dL, lda, dx, 1, 0.0, dy, 1);
  printf("uplo 'X' -> %d: %s\n", bad, eigsolve_status_string(bad));

  /* Check: 'L' and 'U' give the same bits; both are close to a plain double loop. */
  double err = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j)
      s += 1.0 / (double)(1 + i + j);
    const double e = fabs(y_l[i] - s) / fabs(s);
    if (e > err) err = e;
  }
  const int same = memcmp(y_l, y_u, sizeof(double) * N) == 0;
  printf(
      "n = %d: y(0) = %.17g, max relative difference to a naive loop %.2e, 'L' == 'U' bitwise: "
      "%s\n",
      N, y_l[0], err, same ? "yes" : "NO");

  eigsolve_destroy(h);
  cudaStreamDestroy(stream);
  cudaFree(dL);
  cudaFree(dU);
  cudaFree(dx);
  cudaFree(dy);
  free(lower);
  free(upper);
  free(x);
  free(y_l);
  free(y_u);
  return (same && bad == -1 && err < 1e-13) ? 0 : 1;
}
